// The types of the webhook events the outbox holds (apart from the outbox, which needs Node, so that
// browser code and the client package may read them).
export type OutboxEventType =
  | 'article.published'
  | 'article.updated'
  | 'article.unpublished'
  | 'article.deleted'
  | 'tag.created'
  | 'tag.updated'
  | 'tag.deleted'
  | 'import.completed';

// The error answers of an analytics route's schema: one ErrorBody per status code it may answer.
import { ErrorBody } from '../http/errors.ts';

export const errorAnswers = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorBody]));

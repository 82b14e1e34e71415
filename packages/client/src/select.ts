// What `select` does to an article's type, as the server does it to the answer: the fields of a
// list or of a single article by default, plus each field selected `true`, minus each one selected
// `false`; `id` is always there. A `select` given as a JSON string cannot be read by the type
// checker, so it gives the article with every field possibly absent.
import type { ArticleFields, ListField, SelectableField, SingleField } from './server-types.ts';

/** `select` as the object it stands for (the client sends its JSON). */
export type SelectObject = Partial<Record<SelectableField, boolean>>;
/** `select` as an object, or the JSON string itself. */
export type Select = SelectObject | string;

export type { ListField, SingleField };

type Full = Required<ArticleFields>;
// `tagColor` and `tagIcon` are not fields: they add `color` and `icon` to each tag, and `tags`.
type FieldOf<F> = Extract<F extends 'tagColor' | 'tagIcon' ? 'tags' : F, keyof Full>;
type KeysSetTo<S, V> = { [K in keyof S]-?: [Exclude<S[K], undefined>] extends [V] ? K : never }[keyof S];
// A `boolean` that is neither `true` nor `false` to the type checker: the field may be there or not.
type KeysUnknown<S> = { [K in keyof S]-?: boolean extends S[K] ? K : never }[keyof S];
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** An article as the API returns it for `select` S, when `Defaults` are the fields by default. */
export type ArticleWith<Defaults extends SelectableField, S> = S extends string
  ? ArticleFields
  : Flat<
      { id: string } & Pick<
        Full,
        FieldOf<Exclude<Defaults, KeysSetTo<S, false> | KeysUnknown<S>> | KeysSetTo<S, true>>
      > &
        Partial<Pick<Full, FieldOf<KeysUnknown<S>>>>
    >;

/** An item of `articles.list` (the list's default fields when no `select` is given). */
export type ArticleListItem<S = object> = ArticleWith<ListField, S>;
/** The answer of `articles.get` (the single article's default fields when no `select` is given). */
export type ArticleDetail<S = object> = ArticleWith<SingleField, S>;

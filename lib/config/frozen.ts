/** The type operators the resolved config is written with: a section as written, Filled, Frozen. */
import type { EnvironmentInput } from "./environment";

/** A section of the environment as users write it. */
export type Section<K extends keyof EnvironmentInput> = NonNullable<EnvironmentInput[K]>;

/**
 * `T` as the defaults leave it: every key the user may omit is set, except the keys in `Keep`, which
 * stay optional because they are choices without a default (one level; nested sections say theirs).
 */
export type Filled<T, Keep extends keyof T = never> = {
  readonly [K in Exclude<keyof T, Keep>]-?: Frozen<Exclude<T[K], undefined>>;
} & { readonly [K in Keep]?: Frozen<Exclude<T[K], undefined>> };

/** Read-only all the way down: the resolved environment is never changed after resolution. */
export type Frozen<T> = T extends readonly (infer U)[]
  ? readonly Frozen<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T;

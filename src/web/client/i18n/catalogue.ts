/** A catalogue in another language must have exactly the keys of the English one. */
export type Catalogue<T> = { [K in keyof T]: T[K] extends string ? string : Catalogue<T[K]> }

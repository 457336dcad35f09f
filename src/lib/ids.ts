/** Time-ordered UUIDv7: ids sort by creation and keep B-tree inserts local. */
export const newId = (): string => Bun.randomUUIDv7()

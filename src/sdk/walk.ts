/**
 * Cursor walks (the spec's pagination contract: pass each page's `next_cursor` as `cursor` until
 * it is null) as a `Stream` of items, and as an async iterable for code outside Effect.
 */
import { Chunk, Effect, Option, Stream } from "effect"

/**
 * Every item of every page, fetched one page at a time as the stream is read: `page(cursor)`
 * answers a page (`undefined` for the first); `items` picks its rows (`results`, `webhooks`, …).
 */
export const walk = <P extends { readonly next_cursor: string | null }, A, E, R>(
  page: (cursor: string | undefined) => Effect.Effect<P, E, R>,
  items: (page: P) => ReadonlyArray<A>
): Stream.Stream<A, E, R> =>
  Stream.paginateChunkEffect(undefined as string | undefined, (cursor) =>
    Effect.map(page(cursor), (p) => {
      const rows = items(p)
      return [
        Chunk.fromIterable(rows),
        p.next_cursor === null || p.next_cursor === "" ? Option.none() : Option.some(p.next_cursor)
      ] as const
    })
  )

/** `walk` for `for await` (the typed client's calls need nothing more once it is made) */
export const walkAsync = <P extends { readonly next_cursor: string | null }, A, E>(
  page: (cursor: string | undefined) => Effect.Effect<P, E>,
  items: (page: P) => ReadonlyArray<A>
): AsyncIterable<A> => Stream.toAsyncIterable(walk(page, items))

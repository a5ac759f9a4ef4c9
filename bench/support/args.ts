/** The bench's `--name=value` arguments (`--name` alone is `"true"`). */
export const benchArgs = (argv: ReadonlyArray<string> = process.argv.slice(2)): ReadonlyMap<string, string> =>
  new Map(
    argv.map((a) => {
      const [k, v] = a.replace(/^--/, "").split("=")
      return [k!, v ?? "true"] as const
    })
  )

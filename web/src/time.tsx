/** A time in the viewer's zone, with the market's (New York) on hover. */
const market = new Intl.DateTimeFormat("en-US", {
  timeZone: "America/New_York",
  dateStyle: "medium",
  timeStyle: "short"
})

export const Time = ({ iso }: { readonly iso: string }) => {
  const d = new Date(iso)
  return (
    <time dateTime={iso} title={`${market.format(d)} New York`}>
      {d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}
    </time>
  )
}

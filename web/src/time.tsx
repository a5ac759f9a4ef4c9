/** A time in the viewer's zone, with the market's (New York) on hover. */
const market = new Intl.DateTimeFormat("en-US", {
  timeZone: "America/New_York",
  dateStyle: "medium",
  timeStyle: "short"
})

/** `iso`: an instant (shown with its time) or a day `YYYY-MM-DD` (shown as the date, no zone to convert) */
export const Time = ({ iso }: { readonly iso: string }) => {
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) {
    const day = new Date(`${iso}T12:00:00Z`)
    return <time dateTime={iso}>{day.toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" })}</time>
  }
  const d = new Date(iso)
  return (
    <time dateTime={iso} title={`${market.format(d)} New York`}>
      {d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}
    </time>
  )
}

/**
 * The two news columns, from the mentions of one ticker:
 *
 * - `news_volume`: count of mentions in the 24 hours up to `now` with
 *   relevance >= 0.6;
 * - `news_volume_weighted_sentiment`: the relevance-weighted average
 *   sentiment of all mentions in that window (weights = relevance), times
 *   tanh(news_volume / 15), so a single story moves it little and a flood of
 *   relevant stories lets it approach the average. 0 when there is no news.
 *
 * The window is (now - 24h, now]; mentions after `now` are ignored.
 */
export interface NewsMention {
  /** epoch milliseconds of publication */
  readonly at: number
  /** 0..1 */
  readonly relevance: number
  /** -1 (negative) .. 1 (positive) */
  readonly sentiment: number
}

export interface NewsValues {
  readonly newsVolume: number
  readonly newsVolumeWeightedSentiment: number
}

export const NEWS_WINDOW_MS = 24 * 60 * 60 * 1000
export const NEWS_RELEVANCE_MIN = 0.6
export const NEWS_ATTENUATION = 15

export const newsColumns = (mentions: Iterable<NewsMention>, now: number): NewsValues => {
  const from = now - NEWS_WINDOW_MS
  let volume = 0
  let weight = 0
  let weighted = 0
  for (const m of mentions) {
    if (!(m.at > from && m.at <= now)) continue
    if (m.relevance >= NEWS_RELEVANCE_MIN) volume++
    if (m.relevance > 0) {
      weight += m.relevance
      weighted += m.relevance * m.sentiment
    }
  }
  const average = weight > 0 ? weighted / weight : 0
  return {
    newsVolume: volume,
    newsVolumeWeightedSentiment: volume > 0 ? average * Math.tanh(volume / NEWS_ATTENUATION) : 0
  }
}

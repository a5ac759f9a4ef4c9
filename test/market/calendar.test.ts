import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { csvDates, datesDigest } from "../../scripts/build-test-fixtures.js"
import {
  addTradingDays,
  closeInstant,
  cryptoTradingDate,
  easterSunday,
  equityTradingDate,
  holidayName,
  isEarlyClose,
  isTradingDay,
  lastClosedTradingDate,
  marketSession,
  nextTradingDay,
  nyDate,
  nyLocal,
  nyOffsetMs,
  nyseEarlyCloses,
  nyseHolidays,
  nyWallTime,
  openInstant,
  previousTradingDay,
  tradingDaysBetween,
  tradingDaysInRange
} from "../../src/market/calendar.js"
import { alphaVantageCsv, alphaVantageDates } from "../support/fixtures.js"

const iso = (t: number): string => new Date(t).toISOString()

/** every weekday in [from, to], inclusive */
const weekdays = (from: string, to: string): Array<string> => {
  const out: Array<string> = []
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const w = new Date(t).getUTCDay()
    if (w !== 0 && w !== 6) out.push(iso(t).slice(0, 10))
  }
  return out
}

const holidaysIn = (from: string, to: string): Array<string> => {
  const out: Array<string> = []
  for (let y = Number(from.slice(0, 4)); y <= Number(to.slice(0, 4)); y++)
    for (const h of nyseHolidays(y)) if (h.date >= from && h.date <= to) out.push(h.date)
  return out
}

describe("trading days against the Alpha Vantage daily files", () => {
  it("AAPL 1999-11-01 → 2021-04-21: the missing weekdays are exactly the calendar's holidays", () => {
    const dates = csvDates(alphaVantageCsv("AAPL"))
    expect(dates[0]).toBe("1999-11-01")
    expect(dates.at(-1)).toBe("2021-04-21")
    expect(dates).toHaveLength(5402)
    const present = new Set(dates)
    const missing = weekdays(dates[0]!, dates.at(-1)!).filter((d) => !present.has(d))
    expect(missing).toEqual(holidaysIn(dates[0]!, dates.at(-1)!))
    expect(dates.filter((d) => !isTradingDay(d))).toEqual([])
    expect(tradingDaysInRange(dates[0]!, dates.at(-1)!)).toEqual(dates)
    // the unscheduled closures are among them
    for (const d of ["2001-09-11", "2001-09-14", "2004-06-11", "2007-01-02", "2012-10-29", "2012-10-30", "2018-12-05"])
      expect(missing).toContain(d)
  })

  it("every one of the 47 files is gap-free against the calendar between its first and last date", () => {
    // test/fixtures/alphavantage/dates.csv: each file's first and last date, row count and date-column digest
    const files = alphaVantageDates()
    expect(files).toHaveLength(47)
    for (const f of files) {
      const sessions = tradingDaysInRange(f.first, f.last)
      expect(sessions.length, f.file).toBe(f.rows)
      expect(datesDigest(sessions), f.file).toBe(f.sha256)
    }
    // the copied AAPL file agrees with its row
    const aapl = files.find((f) => f.file === "DA-AAPL-T-2021-04-21.csv")!
    expect(datesDigest(csvDates(alphaVantageCsv("AAPL")))).toBe(aapl.sha256)
  })
})

describe("NYSE holidays", () => {
  it("2026 (published NYSE calendar)", () => {
    expect(nyseHolidays(2026)).toEqual([
      { date: "2026-01-01", name: "New Year's Day" },
      { date: "2026-01-19", name: "Martin Luther King Jr. Day" },
      { date: "2026-02-16", name: "Washington's Birthday" },
      { date: "2026-04-03", name: "Good Friday" },
      { date: "2026-05-25", name: "Memorial Day" },
      { date: "2026-06-19", name: "Juneteenth" },
      { date: "2026-07-03", name: "Independence Day (observed)" },
      { date: "2026-09-07", name: "Labor Day" },
      { date: "2026-11-26", name: "Thanksgiving Day" },
      { date: "2026-12-25", name: "Christmas Day" }
    ])
    expect(nyseEarlyCloses(2026).map((e) => e.date)).toEqual(["2026-11-27", "2026-12-24"])
    expect(isTradingDay("2026-07-02")).toBe(true)
    expect(isEarlyClose("2026-07-02")).toBe(false)
  })

  it("2025, with the Carter closure and all three early closes", () => {
    expect(nyseHolidays(2025).map((h) => h.date)).toEqual([
      "2025-01-01",
      "2025-01-09",
      "2025-01-20",
      "2025-02-17",
      "2025-04-18",
      "2025-05-26",
      "2025-06-19",
      "2025-07-04",
      "2025-09-01",
      "2025-11-27",
      "2025-12-25"
    ])
    expect(nyseEarlyCloses(2025).map((e) => e.date)).toEqual(["2025-07-03", "2025-11-28", "2025-12-24"])
  })

  it("observed-date rules", () => {
    // New Year's Day on Saturday is not observed (2022-01-01): Friday 2021-12-31 trades
    expect(isTradingDay("2021-12-31")).toBe(true)
    expect(nyseHolidays(2022).some((h) => h.date.endsWith("-01-01"))).toBe(false)
    // on Sunday it moves to Monday (2023-01-02)
    expect(holidayName("2023-01-02")).toBe("New Year's Day (observed)")
    // Juneteenth from 2022 only, Sunday → Monday
    expect(isTradingDay("2021-06-18")).toBe(true)
    expect(holidayName("2022-06-20")).toBe("Juneteenth (observed)")
    expect(holidayName("2027-06-18")).toBe("Juneteenth (observed)")
    // Independence Day and Christmas on Saturday → Friday, Sunday → Monday
    expect(holidayName("2021-07-05")).toBe("Independence Day (observed)")
    expect(holidayName("2021-12-24")).toBe("Christmas Day (observed)")
    expect(holidayName("2022-12-26")).toBe("Christmas Day (observed)")
    // MLK Day from 1998 only
    expect(isTradingDay("1997-01-20")).toBe(true)
    expect(holidayName("1998-01-19")).toBe("Martin Luther King Jr. Day")
    expect(holidayName("1994-04-27")).toBe("National Day of Mourning (Richard Nixon)")
  })

  it("Good Friday comes from the Easter computus", () => {
    const easter: Record<number, string> = {
      1990: "1990-04-15",
      2000: "2000-04-23",
      2008: "2008-03-23",
      2011: "2011-04-24",
      2019: "2019-04-21",
      2024: "2024-03-31",
      2025: "2025-04-20",
      2026: "2026-04-05",
      2038: "2038-04-25",
      2100: "2100-03-28"
    }
    for (const [y, d] of Object.entries(easter)) {
      expect(easterSunday(Number(y))).toBe(d)
      const gf = new Date(Date.parse(`${d}T00:00:00Z`) - 2 * 86_400_000).toISOString().slice(0, 10)
      expect(holidayName(gf)).toBe("Good Friday")
    }
  })

  it("every year 1990–2100 has 8–13 weekday closures, none on a weekend", () => {
    for (let y = 1990; y <= 2100; y++) {
      const hs = nyseHolidays(y)
      expect(hs.length).toBeGreaterThanOrEqual(8)
      expect(hs.length).toBeLessThanOrEqual(13)
      for (const h of hs) expect([0, 6]).not.toContain(new Date(`${h.date}T00:00:00Z`).getUTCDay())
    }
  })

  it("rejects dates it cannot vouch for", () => {
    expect(() => isTradingDay("1989-12-29")).toThrow(RangeError)
    expect(() => isTradingDay("2101-01-03")).toThrow(RangeError)
    expect(() => isTradingDay("2026-02-30")).toThrow(RangeError)
    expect(() => isTradingDay("2026-1-5")).toThrow(RangeError)
    expect(() => openInstant("2026-07-04")).toThrow(RangeError)
  })
})

describe("New York time", () => {
  it("spring forward and fall back (2007+ rules)", () => {
    expect(nyLocal(Date.parse("2026-03-08T06:59:00Z"))).toEqual({ date: "2026-03-08", minutes: 119 })
    expect(nyLocal(Date.parse("2026-03-08T07:00:00Z"))).toEqual({ date: "2026-03-08", minutes: 180 })
    expect(nyLocal(Date.parse("2026-11-01T05:59:00Z"))).toEqual({ date: "2026-11-01", minutes: 119 }) // 01:59 EDT
    expect(nyLocal(Date.parse("2026-11-01T06:00:00Z"))).toEqual({ date: "2026-11-01", minutes: 60 }) // 01:00 EST again
    expect(iso(openInstant("2026-03-06"))).toBe("2026-03-06T14:30:00.000Z")
    expect(iso(openInstant("2026-03-09"))).toBe("2026-03-09T13:30:00.000Z")
    expect(iso(closeInstant("2026-10-30"))).toBe("2026-10-30T20:00:00.000Z")
    expect(iso(closeInstant("2026-11-02"))).toBe("2026-11-02T21:00:00.000Z")
  })

  it("pre-2007 rules (first Sunday of April to last Sunday of October)", () => {
    expect(nyOffsetMs(Date.parse("2006-03-20T15:00:00Z"))).toBe(-5 * 3_600_000)
    expect(nyOffsetMs(Date.parse("2007-03-20T15:00:00Z"))).toBe(-4 * 3_600_000)
    expect(nyOffsetMs(Date.parse("2006-04-02T06:59:00Z"))).toBe(-5 * 3_600_000)
    expect(nyOffsetMs(Date.parse("2006-04-02T07:00:00Z"))).toBe(-4 * 3_600_000)
    expect(nyOffsetMs(Date.parse("2006-10-29T05:59:00Z"))).toBe(-4 * 3_600_000)
    expect(nyOffsetMs(Date.parse("2006-10-29T06:00:00Z"))).toBe(-5 * 3_600_000)
    expect(iso(openInstant("2006-10-30"))).toBe("2006-10-30T14:30:00.000Z")
  })

  it("agrees with Intl's America/New_York for any instant 1990–2100", () => {
    const fmt = new Intl.DateTimeFormat("en-CA", {
      timeZone: "America/New_York",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23"
    })
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1990, 0, 2), max: Date.UTC(2100, 11, 30) }), (t) => {
        const p = Object.fromEntries(fmt.formatToParts(t).map((x) => [x.type, x.value]))
        const local = nyLocal(t)
        expect(local.date).toBe(`${p["year"]}-${p["month"]}-${p["day"]}`)
        expect(local.minutes).toBe(Number(p["hour"]) * 60 + Number(p["minute"]))
        expect(nyDate(t)).toBe(local.date)
      }),
      { numRuns: 2000 }
    )
  })

  it("nyWallTime round-trips", () => {
    expect(iso(nyWallTime("2026-07-01", 9, 30))).toBe("2026-07-01T13:30:00.000Z")
    expect(iso(nyWallTime("2026-01-15", 16))).toBe("2026-01-15T21:00:00.000Z")
  })
})

describe("sessions", () => {
  const at = (s: string) => Date.parse(s)

  it("during a regular session", () => {
    const s = marketSession(at("2026-03-09T14:00:00Z"))
    expect(s).toEqual({
      open: true,
      tradingDate: "2026-03-09",
      opensAt: at("2026-03-09T13:30:00Z"),
      closesAt: at("2026-03-09T20:00:00Z"),
      nextOpen: at("2026-03-10T13:30:00Z"),
      nextClose: at("2026-03-09T20:00:00Z"),
      earlyClose: false
    })
  })

  it("open at 09:30:00 exactly, closed at 16:00:00 exactly", () => {
    expect(marketSession(at("2026-03-09T13:30:00Z")).open).toBe(true)
    expect(marketSession(at("2026-03-09T13:29:59.999Z")).open).toBe(false)
    expect(marketSession(at("2026-03-09T20:00:00Z")).open).toBe(false)
  })

  it("pre-market belongs to the previous session; the next open is today's", () => {
    const t = at("2026-03-09T12:00:00Z") // Monday 08:00 EDT
    const s = marketSession(t)
    expect(s.open).toBe(false)
    expect(s.tradingDate).toBe("2026-03-06")
    expect(s.nextOpen).toBe(at("2026-03-09T13:30:00Z"))
    expect(s.nextClose).toBe(at("2026-03-09T20:00:00Z"))
    expect(equityTradingDate(t)).toBe("2026-03-06")
    expect(lastClosedTradingDate(t)).toBe("2026-03-06")
  })

  it("after the close the day's session is still the trading date; the last closed date moves at the close", () => {
    expect(equityTradingDate(at("2026-03-09T19:59:00Z"))).toBe("2026-03-09")
    expect(lastClosedTradingDate(at("2026-03-09T19:59:00Z"))).toBe("2026-03-06")
    expect(lastClosedTradingDate(at("2026-03-09T20:00:00Z"))).toBe("2026-03-09")
    expect(equityTradingDate(at("2026-03-10T03:59:00Z"))).toBe("2026-03-09") // 23:59 EDT
  })

  it("weekend and holiday", () => {
    const sat = marketSession(at("2026-07-04T15:00:00Z"))
    expect(sat.open).toBe(false)
    expect(sat.tradingDate).toBe("2026-07-02") // Friday 07-03 is the observed holiday
    expect(sat.nextOpen).toBe(at("2026-07-06T13:30:00Z"))
    expect(sat.nextClose).toBe(at("2026-07-06T20:00:00Z"))
    expect(equityTradingDate(at("2026-04-03T15:00:00Z"))).toBe("2026-04-02") // Good Friday
  })

  it("early close at 13:00 ET", () => {
    expect(iso(closeInstant("2026-11-27"))).toBe("2026-11-27T18:00:00.000Z")
    expect(iso(closeInstant("2025-07-03"))).toBe("2025-07-03T17:00:00.000Z")
    expect(iso(closeInstant("2026-12-24"))).toBe("2026-12-24T18:00:00.000Z")
    const during = marketSession(at("2026-11-27T17:30:00Z"))
    expect(during.open).toBe(true)
    expect(during.earlyClose).toBe(true)
    const after = marketSession(at("2026-11-27T18:30:00Z"))
    expect(after.open).toBe(false)
    expect(after.tradingDate).toBe("2026-11-27")
    expect(after.nextOpen).toBe(at("2026-11-30T14:30:00Z"))
  })

  it("crypto's date is the UTC date", () => {
    expect(cryptoTradingDate(at("2026-03-09T23:59:59.999Z"))).toBe("2026-03-09")
    expect(cryptoTradingDate(at("2026-03-10T00:00:00Z"))).toBe("2026-03-10")
    expect(cryptoTradingDate(at("2026-03-10T02:00:00Z"))).not.toBe(nyDate(at("2026-03-10T02:00:00Z")))
  })

  it("the longest closure: from inside the 2001-09-10 session the next open is 2001-09-17", () => {
    const t = Date.UTC(2001, 8, 10, 15, 33)
    const s = marketSession(t)
    expect(s.tradingDate).toBe("2001-09-10")
    expect(s.nextOpen).toBe(openInstant("2001-09-17"))
    expect(s.nextOpen - t).toBeGreaterThan(6 * 86_400_000)
  })

  it("invariants over random instants", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2099, 0, 1) }), (t) => {
        const s = marketSession(t)
        expect(isTradingDay(s.tradingDate)).toBe(true)
        expect(s.opensAt).toBeLessThanOrEqual(t)
        expect(s.open).toBe(t < s.closesAt)
        expect(s.nextOpen).toBeGreaterThan(t)
        expect(s.nextClose).toBeGreaterThan(t)
        expect(s.nextClose).toBeGreaterThan(s.open ? s.opensAt : s.nextOpen)
        // the longest wait for an open: Monday 2001-09-10 to Monday 09-17 (the 9/11 closure), under 7 days
        expect(s.nextOpen - t).toBeLessThan(7 * 86_400_000)
        const closed = lastClosedTradingDate(t)
        expect(closeInstant(closed)).toBeLessThanOrEqual(t)
        expect(closeInstant(nextTradingDay(closed))).toBeGreaterThan(t)
      }),
      { numRuns: 2000 }
    )
  })
})

describe("trading-day arithmetic", () => {
  it("next / previous / add", () => {
    expect(nextTradingDay("2026-04-02")).toBe("2026-04-06") // over Good Friday and the weekend
    expect(previousTradingDay("2026-04-06")).toBe("2026-04-02")
    expect(previousTradingDay("2026-04-04")).toBe("2026-04-02")
    expect(addTradingDays("2026-04-02", 1)).toBe("2026-04-06")
    expect(addTradingDays("2026-04-06", -1)).toBe("2026-04-02")
    expect(addTradingDays("2026-04-04", 0)).toBe("2026-04-02") // as-of convention
    expect(addTradingDays("2026-04-04", 1)).toBe("2026-04-06")
    expect(addTradingDays("2026-12-31", 1)).toBe("2027-01-04")
    expect(addTradingDays("2026-01-02", 20)).toBe("2026-02-02")
    expect(() => addTradingDays("2026-01-02", 1.5)).toThrow(RangeError)
  })

  it("between", () => {
    expect(tradingDaysBetween("2026-04-02", "2026-04-06")).toBe(1)
    expect(tradingDaysBetween("2026-04-06", "2026-04-02")).toBe(-1)
    expect(tradingDaysBetween("2026-04-06", "2026-04-06")).toBe(0)
    expect(tradingDaysBetween("2025-12-31", "2026-12-31")).toBe(251) // 261 weekdays − 10 holidays
    expect(tradingDaysInRange("2026-04-01", "2026-04-07")).toEqual([
      "2026-04-01",
      "2026-04-02",
      "2026-04-06",
      "2026-04-07"
    ])
    expect(tradingDaysInRange("2026-04-07", "2026-04-01")).toEqual([])
  })

  it("addTradingDays(a, tradingDaysBetween(a, b)) === b for trading days", () => {
    const day = fc
      .integer({ min: Date.UTC(1992, 0, 1), max: Date.UTC(2098, 0, 1) })
      .map((t) => addTradingDays(iso(t).slice(0, 10), 0))
    fc.assert(
      fc.property(day, fc.integer({ min: -400, max: 400 }), (a, delta) => {
        const b = addTradingDays(a, delta)
        expect(tradingDaysBetween(a, b)).toBe(delta)
        expect(addTradingDays(a, tradingDaysBetween(a, b))).toBe(b)
      }),
      { numRuns: 300 }
    )
  })
})

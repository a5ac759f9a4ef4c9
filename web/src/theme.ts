/**
 * Light and dark: the viewer's choice (`light`, `dark`, or `system`, the default: the system's
 * setting, followed as it changes), applied as `data-theme` on the document's root, which the
 * styles and the charts read. Only an explicit choice is kept (localStorage `vigil-theme`: a
 * preference, nothing secret).
 */
import { useEffect, useState } from "react"

export type ThemeChoice = "system" | "light" | "dark"

const KEY = "vigil-theme"
const systemDark = () => window.matchMedia?.("(prefers-color-scheme: dark)").matches === true

const stored = (): ThemeChoice => {
  try {
    const v = window.localStorage.getItem(KEY)
    return v === "light" || v === "dark" ? v : "system"
  } catch {
    return "system"
  }
}

const CHANGED = "vigil-theme-changed"

const apply = (choice: ThemeChoice) => {
  const dark = choice === "dark" || (choice === "system" && systemDark())
  const theme = dark ? "dark" : "light"
  if (document.documentElement.dataset.theme === theme) return
  document.documentElement.dataset.theme = theme
  document.documentElement.style.colorScheme = theme
  window.dispatchEvent(new Event(CHANGED))
}

/** before the first render: the page never flashes the other theme */
export const applyStoredTheme = () => apply(stored())

const isDark = () => document.documentElement.dataset.theme === "dark"

/** whether the page is dark now, following changes (the charts draw again in the theme's colours) */
export const useDark = () => {
  const [dark, setDark] = useState(isDark)
  useEffect(() => {
    const changed = () => setDark(isDark())
    window.addEventListener(CHANGED, changed)
    return () => window.removeEventListener(CHANGED, changed)
  }, [])
  return dark
}

export const useTheme = () => {
  const [choice, setChoice] = useState<ThemeChoice>(stored)
  useEffect(() => {
    apply(choice)
    try {
      if (choice === "system") window.localStorage.removeItem(KEY)
      else window.localStorage.setItem(KEY, choice)
    } catch {
      // storage refused (a private window): the choice lasts for the page
    }
    if (choice !== "system") return
    const media = window.matchMedia?.("(prefers-color-scheme: dark)")
    const follow = () => apply("system")
    media?.addEventListener("change", follow)
    return () => media?.removeEventListener("change", follow)
  }, [choice])
  return [choice, setChoice] as const
}

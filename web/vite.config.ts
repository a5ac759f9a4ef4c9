/**
 * The dashboard's build (issue 18): React with Vite, from `web/` into `dist/web/` (not committed),
 * served by the service at `/`. `npm install` builds it (postinstall), as does `npm run build:web`.
 */
import { fileURLToPath } from "node:url"
import react from "@vitejs/plugin-react"
import { defineConfig } from "vite"

const root = fileURLToPath(new URL(".", import.meta.url))

export default defineConfig({
  root,
  base: "/",
  plugins: [react()],
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false
  }
})

import { runProcess } from "./runProcess.js"

runProcess()

// Exit codes of bin/deletions. Stable: scripts depend on them (README lists them).
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** A failure was recorded against the request (retry scheduled or blocked). */
  failureRecorded: 1,
  /** Bad command line: unknown command, missing or malformed argument. */
  usage: 2,
  /** Not runnable now: terminal, blocked, leased elsewhere, waiting (reason printed). */
  notRunnable: 3,
  /** Refused for safety: wrong stage, self-approval, digest mismatch, fenced… */
  safetyRefusal: 4,
  /** Configuration or environment problem (missing variable, unreachable service). */
  config: 5,
  /** The sweep found keys outside the storage taxonomy. */
  unknownKeys: 6,
  /** run/drain/worker stopped by SIGINT (128 + 2): its claim was released, nothing recorded. */
  interrupted: 130,
  /** run/drain/worker stopped by SIGTERM (128 + 15): its claim was released, nothing recorded. */
  terminated: 143,
  /** An unexpected error: a bug in this program (please report it with the message). */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

// Files that hold the organization's rows (the mirror, Parquet staging, journals, checkpoints) are the
// user's alone: created 0600, as the config file is. DuckDB creates its own files (the database, its
// .wal each time after a checkpoint, spill files) with mode 0666 less the umask and offers no option, so
// while such a database is open the process umask is made private (held); what tds writes for the user
// meanwhile (-o FILE) gets the mode the user's own umask gives, explicitly (userFileMode).

export const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_UMASK = 0o077;

let holds = 0;
/** The umask before the first hold, while any hold lasts. */
let userUmask: number | undefined;

/** Makes files created from now on private until the returned release is called (holds nest). */
export function holdPrivateUmask(): () => void {
  if (holds === 0) {
    // never laxer than private for an instant: another thread (DuckDB's) may be creating a file
    const before = process.umask(PRIVATE_UMASK);
    process.umask(before | PRIVATE_UMASK);
    userUmask = before;
  }
  holds += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds -= 1;
    if (holds === 0 && userUmask !== undefined) {
      process.umask(userUmask);
      userUmask = undefined;
    }
  };
}

/** The mode a file the user asked for (-o FILE) gets from the user's umask, whether or not a hold is on. */
export function userFileMode(): number {
  return 0o666 & ~(userUmask ?? currentUmask());
}

/** Reads the umask without the deprecated no-argument call (which sets it to 0 for an instant). */
function currentUmask(): number {
  const mask = process.umask(PRIVATE_UMASK);
  process.umask(mask);
  return mask;
}

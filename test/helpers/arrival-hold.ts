// A request held at the emulator on its arrival (the harness's `onArrival`) until the test lets it go: a
// barrier that puts a run at a chosen point (a batch in flight, a page in the middle of a pass) however
// fast or slow the machine is.

/** The request the emulator's `onArrival` hook is given. */
export interface ArrivedRequest {
  method: string;
  path: string;
}

export interface ArrivalHold {
  /** The harness's `onArrival`: holds the first request `matches` accepts after `arm()`. */
  onArrival(request: ArrivedRequest): Promise<void>;
  /** From now on, the next matching request is held. */
  arm(): void;
  /** Resolves once the held request has arrived (and waits). */
  readonly arrived: Promise<void>;
  /** Lets the held request go on. */
  release(): void;
}

/** Holds one request that `matches` accepts, once armed. */
export function holdArrival(matches: (request: ArrivedRequest) => boolean): ArrivalHold {
  let armed = false;
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    async onArrival(request) {
      if (!armed || !matches(request)) return;
      armed = false;
      arrive();
      await released;
    },
    arm: () => void (armed = true),
    arrived,
    release,
  };
}

import type { Context } from '../core/context.js';
import type { ApiClient } from '../http/client.js';
import type { Caps } from './caps.js';
import { MirrorAccess } from './mirror-access.js';
import type { HintsOf } from './tool-result.js';

/** What `tds mcp` was started with. */
export interface McpServeOptions {
  /** the mirror file */
  db: string;
  /** the `checks` setting: check_tables's checks file (else tds-checks.yaml in the current folder) */
  checks?: string;
  /** --allow-push: push_records is offered */
  allowPush: boolean;
  caps: Caps;
  version: string;
  /** --profile (saved webhooks are read from it) */
  profile?: string;
  /** how push_records delivers: the settings' pacing scale, retries and timeout */
  delivery: { rateScale: number; maxRetries?: number; timeoutMs?: number };
  /**
   * The API client for the settings, bound to `signal`; throws the command line's error (no base URL,
   * no key) when they do not allow one.
   */
  connect(signal: AbortSignal): Promise<ApiClient>;
  /** The command line's advice for a failure (commands/hints.ts). */
  hintsOf: HintsOf;
  /** Texts no result or log may hold (the API key); push_records adds the webhook URLs it loads. */
  secrets?: string[];
}

/** The read-only mirror is closed right after each read: a sync --follow in another process writes it between reads. */
const MIRROR_IDLE_MS = 0;

/**
 * What the tools share for the life of the server: one API client (so every row request, a sync's
 * and search_rows', keeps within the organization's one row-read limit), the mirror, the caps.
 */
export class Session {
  readonly mirror: MirrorAccess;
  readonly secrets: Set<string>;
  private client: Promise<ApiClient> | undefined;

  constructor(
    /** the command's Context, its signal the server's end */
    readonly ctx: Context,
    readonly options: McpServeOptions,
  ) {
    this.mirror = new MirrorAccess(options.db, MIRROR_IDLE_MS);
    this.secrets = new Set(options.secrets ?? []);
  }

  get caps(): Caps {
    return this.options.caps;
  }

  /** The API client, made on first use; the command line's error when the settings lack a base URL or key. */
  service(): Promise<ApiClient> {
    this.client ??= this.options.connect(this.ctx.signal).catch((error: unknown) => {
      this.client = undefined;
      throw error;
    });
    return this.client;
  }

  async close(): Promise<void> {
    await this.mirror.close();
    await (await this.client?.catch(() => undefined))?.close();
  }
}

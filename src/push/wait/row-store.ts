import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Row } from '../../service/index.js';

/**
 * Rows kept by key in a temporary file (memory holds only where each one is), so waiting for a
 * million pushed rows stays flat. A key stored again points to its newer row.
 */
export class RowStore {
  private readonly where = new Map<string, { offset: number; length: number }>();
  private size = 0;

  private constructor(
    private readonly dir: string,
    private readonly file: FileHandle,
  ) {}

  static async create(): Promise<RowStore> {
    const dir = await mkdtemp(join(tmpdir(), 'tds-rows-'));
    try {
      return new RowStore(dir, await open(join(dir, 'rows.ndjson'), 'w+', 0o600));
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get count(): number {
    return this.where.size;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  async put(key: string, row: Row): Promise<void> {
    const text = Buffer.from(`${JSON.stringify(row)}\n`);
    await this.file.write(text, 0, text.length, this.size);
    this.where.set(key, { offset: this.size, length: text.length });
    this.size += text.length;
  }

  async get(key: string): Promise<Row | undefined> {
    const at = this.where.get(key);
    if (!at) return undefined;
    const buffer = Buffer.alloc(at.length);
    await this.file.read(buffer, 0, at.length, at.offset);
    return JSON.parse(buffer.toString('utf8')) as Row;
  }

  async close(): Promise<void> {
    await this.file.close().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}

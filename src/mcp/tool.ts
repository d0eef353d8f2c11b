import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { CallContext } from './call-context.js';
import type { Session } from './session.js';

/** A progress notification's content (sent only when the client asked for them with a progress token). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a tool gets for one call. */
export interface ToolCall {
  session: Session;
  /** the Context its command code runs with: stdout captured, the call's signal */
  call: CallContext;
  signal: AbortSignal;
  progress(update: ProgressUpdate): void;
}

/**
 * One tool: its name, a description written for the agent (what it returns, its caps, when another
 * tool is better), its input and output schemas, and what it does. A failure is thrown (a TdsError
 * with the command line's message) and becomes an `isError` result.
 */
export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  run(args: z.output<S>, call: ToolCall): Promise<Record<string, unknown>>;
}

export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool<S> {
  return tool;
}

/** A failure with more to tell than its message (a push's summary), shown after the message and hint. */
export class ToolFailure extends Error {
  constructor(
    readonly failure: unknown,
    readonly detail: string,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

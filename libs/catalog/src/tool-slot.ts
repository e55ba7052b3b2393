import { headerParamsOf, type HeaderParam } from '@switchboard/protocol';
import type { ArgsValidator } from './compile-validator';
import type { ToolEntry } from './definitions';

/** What a slot asks the first time its tool is called: the (shared) validator of its schema. */
export type ValidatorSource = (entry: ToolEntry, onSchemaError?: (toolName: string, err: Error) => void) => ArgsValidator;

/**
 * A tool by name, with what its calls derive from its definition made on the first call and kept
 * here: the argument validator (ajv compiles cost milliseconds, and most tools of most tenants
 * are never called) and the SEP-2243 header arguments. Kept per slot, not per schema object: a
 * compacted definition parses a new schema object on each read. A class, not closures: a resident
 * tenant holds one per tool.
 */
export class ToolSlot {
  private compiled: ArgsValidator | undefined;
  private params: readonly HeaderParam[] | undefined;

  constructor(
    readonly entry: ToolEntry,
    private readonly validators: ValidatorSource,
    private readonly onSchemaError?: (toolName: string, err: Error) => void,
  ) {}

  /** The call's arguments checked against the tool's `inputSchema`: null when valid, else the problem. */
  validate(args: unknown): string | null {
    this.compiled ??= this.validators(this.entry, this.onSchemaError);
    return this.compiled(args);
  }

  /** The arguments the tool mirrors into `Mcp-Param-*` headers (SEP-2243). */
  headerParams(): readonly HeaderParam[] {
    return (this.params ??= headerParamsOf(this.entry.definition.inputSchema));
  }
}

import { FeedFormatError } from '../../domain/sources/types';

/** A file `admin rates import --source` refuses (unreadable, or not the publisher's format): nothing was written. */
export class SourceFileError extends Error {
  override name = 'SourceFileError';
  /** The line of the file at fault, when the parser could tell. */
  readonly line: number | undefined;

  constructor(message: string, line?: number, options?: ErrorOptions) {
    super(message, options);
    this.line = line;
  }

  static from(file: string, error: unknown): SourceFileError {
    if (error instanceof FeedFormatError)
      return new SourceFileError(`${file}, line ${error.line}: ${error.reason} (nothing was imported)`, error.line, { cause: error });
    const message = error instanceof Error ? error.message : String(error);
    return new SourceFileError(`cannot read ${file}: ${message}`, undefined, { cause: error });
  }
}

import { unzipSync } from 'fflate';
import { parseEcbCsv } from './parse-csv';
import { parseEcbXml } from './parse-xml';
import type { Publication } from './types';
import { EcbFormatError, show } from './validate';

/** The most a zip member may inflate to; the real history CSV is under 2 MiB. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

const MEMBER = /\.(csv|xml)$/i;

function isZip(bytes: Uint8Array): boolean {
  // PK\x03\x04 starts a zip with members; PK\x05\x06 is an empty zip (refused below, with a clear message).
  return bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

/**
 * The one .csv or .xml member of an ECB zip. The sizes declared in the central directory are checked
 * before anything is inflated, and fflate inflates into a buffer of exactly the declared size, so a
 * zip bomb never allocates more than MAX_INFLATED_BYTES.
 */
function unzipMember(bytes: Uint8Array): Uint8Array {
  // Shorter than an end-of-directory record: fflate would search 64 KiB backwards for one.
  if (bytes.length < 22) throw new EcbFormatError('corrupt zip: too short to hold a directory');
  const members: { name: string; originalSize: number }[] = [];
  const tooMany = new EcbFormatError('zip holds more than one file');
  try {
    // First pass reads the directory only (the filter extracts nothing) and stops at a second
    // member, so a damaged directory claiming 65,535 entries is not walked to the end.
    unzipSync(bytes, {
      filter: (file) => {
        if (!file.name.endsWith('/')) members.push({ name: file.name, originalSize: file.originalSize });
        if (members.length > 1) throw tooMany;
        return false;
      },
    });
  } catch (error) {
    if (error === tooMany) {
      throw new EcbFormatError(
        `zip holds more than one file (${members.map((m) => show(m.name)).join(', ')}, …); expected exactly one .csv or .xml`,
      );
    }
    throw new EcbFormatError(`corrupt zip: ${(error as Error).message}`, { cause: error });
  }
  const member = members[0];
  if (!member) throw new EcbFormatError('zip holds no file; expected exactly one .csv or .xml');
  if (!MEMBER.test(member.name)) throw new EcbFormatError(`zip member ${show(member.name)} is not a .csv or .xml file`);
  if (member.originalSize > MAX_INFLATED_BYTES) {
    throw new EcbFormatError(`zip member ${member.name} declares ${member.originalSize} bytes, over the ${MAX_INFLATED_BYTES}-byte limit`);
  }
  let data: Uint8Array | undefined;
  try {
    data = unzipSync(bytes, { filter: (file) => file.name === member.name })[member.name];
  } catch (error) {
    throw new EcbFormatError(`corrupt zip member ${member.name}: ${(error as Error).message}`, { cause: error });
  }
  // A shorter result means the deflate stream and the directory disagree: the zip is damaged.
  if (!data || data.length !== member.originalSize) {
    throw new EcbFormatError(
      `corrupt zip member ${member.name}: inflated ${data?.length ?? 0} bytes, the directory says ${member.originalSize}`,
    );
  }
  return data;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    // fatal: a stray byte fails loudly instead of becoming U+FFFD inside a rate; the BOM is dropped.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new EcbFormatError('not an ECB document: the bytes are not valid UTF-8', { cause: error });
  }
}

function parseBytes(bytes: Uint8Array): Publication[] {
  const text = decodeUtf8(isZip(bytes) ? unzipMember(bytes) : bytes);
  const first = text.search(/\S/);
  if (first < 0) throw new EcbFormatError('not an ECB document: the file is empty');
  return text[first] === '<' ? parseEcbXml(text) : parseEcbCsv(text);
}

/**
 * Parses any ECB rates file as downloaded: a zip holding one CSV or XML, an XML feed, or a CSV.
 * `name` (the file name or URL) only prefixes error messages. Returns publications oldest first.
 */
export function parseEcbFile(bytes: Uint8Array, name?: string): Publication[] {
  try {
    return parseBytes(bytes);
  } catch (error) {
    if (name === undefined || !(error instanceof EcbFormatError)) throw error;
    throw new EcbFormatError(`${name}: ${error.message}`, { cause: error });
  }
}

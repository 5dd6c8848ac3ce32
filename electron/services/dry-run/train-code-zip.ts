/**
 * The checks /sync_train_code makes on an uploaded zip before extracting it (upstream
 * ajet/utils/sync_train_code.py::extract_ajet_zip; reference appendix point 14), in upstream's order: empty body,
 * not a zip, no members, then per member (unsafe path, outside ajet/), then no ajet/ directory. The dry run's
 * trainer runs no Python, so the members are only listed from the central directory, never written.
 */
import { posix } from 'node:path';

class NotAZip extends Error {}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const UTF8_NAME_FLAG = 0x800;

/** Member names as Python's zipfile lists them (infolist order). */
function memberNames(zip: Buffer): string[] {
  // The end record sits in the last 22 bytes plus an optional comment of up to 65,535 bytes.
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new NotAZip('File is not a zip file');
  const count = zip.readUInt16LE(end + 10);
  const size = zip.readUInt32LE(end + 12);
  let offset = zip.readUInt32LE(end + 16);
  if (offset + size > end) throw new NotAZip('Bad magic number for central directory');
  const names: string[] = [];
  for (let n = 0; n < count; n++) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY) throw new NotAZip('Bad magic number for central directory');
    const flags = zip.readUInt16LE(offset + 8);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const raw = zip.subarray(offset + 46, offset + 46 + nameLength);
    // Without the UTF-8 flag Python decodes cp437, which equals latin1 for the ASCII names code uses.
    names.push(flags & UTF8_NAME_FLAG ? raw.toString('utf8') : raw.toString('latin1'));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

/** undefined when upstream would extract the upload; otherwise the detail of its HTTP 400. */
export function trainCodeZipProblem(zip: Buffer): string | undefined {
  if (zip.length === 0) return 'Uploaded zip file is empty.';
  let names: string[];
  try {
    names = memberNames(zip);
  } catch (error) {
    if (error instanceof NotAZip || error instanceof RangeError) return 'Uploaded file is not a valid zip file.';
    throw error;
  }
  if (names.length === 0) return 'Uploaded zip file is empty.';
  let hasAjetDirectory = false;
  for (const name of names) {
    const normalized = posix.normalize(name.replace(/\\/g, '/')).replace(/(.)\/$/, '$1');
    if (normalized === '.' || normalized === '') continue;
    if (normalized.startsWith('../') || normalized === '..' || normalized.startsWith('/')) return `Unsafe zip member path: ${name}`;
    if (normalized !== 'ajet' && !normalized.startsWith('ajet/')) return `Zip member must be under ajet/: ${name}`;
    // A plain file called "ajet" extracts as a file, and upstream then finds no ajet/ directory.
    if (normalized.startsWith('ajet/') || name.endsWith('/')) hasAjetDirectory = true;
  }
  if (!hasAjetDirectory) return 'Uploaded zip file does not contain an ajet/ directory.';
  return undefined;
}

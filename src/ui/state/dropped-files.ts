/**
 * Files from a drop, folders included: a dropped folder arrives as a
 * directory entry, walked here so a Spider or BIRD folder (database/<db>/<db>.sqlite)
 * keeps its paths. A drop of plain files gives them as they are.
 */
import type { PickedFile } from './fixture-files.ts';

/** Entries a folder can hold; one readEntries() call returns at most ~100. */
async function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  const out: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return out;
    out.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({
      name: file.name,
      bytes: new Uint8Array(await file.arrayBuffer()),
      path: entry.fullPath.replace(/^\/+/, ''),
    });
    return;
  }
  if (entry.isDirectory)
    for (const child of await readAll((entry as FileSystemDirectoryEntry).createReader())) await walk(child, out);
}

/** Every file of a drop, with its path inside each dropped folder. */
export async function filesFromDrop(transfer: DataTransfer): Promise<PickedFile[]> {
  // Entries must be taken synchronously, before the first await (the DataTransfer empties after the event).
  const items = [...transfer.items].filter((i) => i.kind === 'file');
  const entries = items.map((i) => i.webkitGetAsEntry?.() ?? null);
  const files = items.map((i) => i.getAsFile());
  const out: PickedFile[] = [];
  for (const [i, entry] of entries.entries()) {
    if (entry?.isDirectory) await walk(entry, out);
    else {
      const file = files[i];
      if (file) out.push({ name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) });
    }
  }
  return out;
}

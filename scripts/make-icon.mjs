#!/usr/bin/env node
/**
 * Writes resources/icon.png (512×512 RGBA): a rounded dark tile with a hexagonal "swarm" of seven
 * nodes linked to the centre. Generated with zlib only, so the icon is reproducible without any
 * image tool: `node scripts/make-icon.mjs`. electron-builder converts this PNG to .icns/.ico on
 * macOS/Windows builds.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 512;
const out = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'resources', 'icon.png');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Coverage of a shape edge at signed distance d (negative = inside), 1 px anti-aliasing. */
const cover = (d) => Math.min(1, Math.max(0, 0.5 - d));

function roundedRectDistance(x, y, inset, radius) {
  const half = SIZE / 2 - inset;
  const qx = Math.abs(x - SIZE / 2) - (half - radius);
  const qy = Math.abs(y - SIZE / 2) - (half - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

const centre = { x: SIZE / 2, y: SIZE / 2 };
const ring = Array.from({ length: 6 }, (_, i) => {
  const angle = (Math.PI / 3) * i - Math.PI / 2;
  return { x: centre.x + Math.cos(angle) * 150, y: centre.y + Math.sin(angle) * 150 };
});

function blend(base, colour, alpha) {
  return base.map((v, i) => v + (colour[i] - v) * alpha);
}

const raw = Buffer.alloc((SIZE * 4 + 1) * SIZE);
for (let y = 0; y < SIZE; y += 1) {
  const row = y * (SIZE * 4 + 1);
  raw[row] = 0; // PNG filter type "None" for this scanline
  for (let x = 0; x < SIZE; x += 1) {
    const px = x + 0.5;
    const py = y + 0.5;
    const tile = cover(roundedRectDistance(px, py, 16, 96));
    // Vertical gradient from deep blue to near-black.
    const t = y / SIZE;
    let rgb = [22 - 10 * t, 40 - 16 * t, 74 - 30 * t];
    for (const node of ring) {
      rgb = blend(rgb, [94, 234, 212], 0.85 * cover(segmentDistance(px, py, centre.x, centre.y, node.x, node.y) - 7));
    }
    for (let i = 0; i < ring.length; i += 1) {
      const a = ring[i];
      const b = ring[(i + 1) % ring.length];
      rgb = blend(rgb, [45, 212, 191], 0.45 * cover(segmentDistance(px, py, a.x, a.y, b.x, b.y) - 4));
    }
    for (const node of ring) rgb = blend(rgb, [94, 234, 212], cover(Math.hypot(px - node.x, py - node.y) - 40));
    rgb = blend(rgb, [251, 191, 36], cover(Math.hypot(px - centre.x, py - centre.y) - 58));
    const offset = row + 1 + x * 4;
    raw[offset] = Math.round(rgb[0]);
    raw[offset + 1] = Math.round(rgb[1]);
    raw[offset + 2] = Math.round(rgb[2]);
    raw[offset + 3] = Math.round(255 * tile);
  }
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // colour type RGBA
header[10] = 0; // compression
header[11] = 0; // filter method
header[12] = 0; // no interlace

const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, png);
console.log(`wrote ${out} (${SIZE}x${SIZE}, ${png.length} bytes)`);

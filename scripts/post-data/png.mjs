// A minimal PNG encoder (8-bit RGB, no interlace) for the few heatmaps a post draws at build time,
// so that a 64 × 128 matrix is one small image instead of 8,192 SVG rectangles.

import { crc32, deflateSync } from 'node:zlib';

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

// rgb: width × height × 3 bytes, row-major. Returns the PNG file's bytes.
export function encodePng(width, height, rgb) {
  if (rgb.length !== width * height * 3) throw new Error(`encodePng: ${rgb.length} bytes for ${width} × ${height} RGB`);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);  // 8 bits per channel, truecolour, deflate, no filter method, no interlace
  const rows = Buffer.alloc(height * (1 + 3 * width));
  for (let y = 0; y < height; ++y) {
    rows[y * (1 + 3 * width)] = 0;  // filter type None
    rows.set(rgb.subarray(y * 3 * width, (y + 1) * 3 * width), y * (1 + 3 * width) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

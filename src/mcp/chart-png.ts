/**
 * The price history as a small PNG line chart for MCP clients: assistants' image inputs take PNG, JPEG, GIF or WebP,
 * not SVG. Lines and points only (no text: a font would be a dependency); the tool's text names each line by its
 * colour, with first/last/low/high values and the currency. Encoded by hand: RGB rows, zlib, CRC-32 (node:zlib).
 */
import { crc32, deflateSync } from 'node:zlib';
import type { Series } from '../history/series.js';

const W = 640;
const H = 320;
const PAD = 16;

/** Line colours, in series order, with the names the text uses. */
export const LINE_COLOURS: readonly { name: string; rgb: readonly [number, number, number] }[] = [
  { name: 'blue', rgb: [31, 119, 180] },
  { name: 'red', rgb: [214, 39, 40] },
  { name: 'green', rgb: [44, 160, 44] },
  { name: 'orange', rgb: [255, 127, 14] },
  { name: 'purple', rgb: [148, 103, 189] },
  { name: 'brown', rgb: [140, 86, 75] },
  { name: 'pink', rgb: [227, 119, 194] },
  { name: 'teal', rgb: [23, 190, 207] },
];

export function renderChartPng(series: readonly Series[]): Buffer {
  const px = Buffer.alloc(W * H * 3, 255);
  const set = (x: number, y: number, [r, g, b]: readonly number[]) => {
    if (x < 0 || y < 0 || x >= W || y >= H) return;
    const i = (y * W + x) * 3;
    px[i] = r!;
    px[i + 1] = g!;
    px[i + 2] = b!;
  };
  const dot = (x: number, y: number, rgb: readonly number[], r: number) => {
    for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) set(x + dx, y + dy, rgb);
  };
  const line = (x0: number, y0: number, x1: number, y1: number, rgb: readonly number[], r: number) => {
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    for (let s = 0; s <= steps; s++) {
      dot(Math.round(x0 + ((x1 - x0) * s) / steps), Math.round(y0 + ((y1 - y0) * s) / steps), rgb, r);
    }
  };
  // Grid and axes.
  for (let k = 0; k <= 4; k++) {
    const y = Math.round(PAD + ((H - 2 * PAD) * k) / 4);
    line(PAD, y, W - PAD, y, [235, 235, 235], 0);
  }
  line(PAD, PAD, PAD, H - PAD, [80, 80, 80], 0);
  line(PAD, H - PAD, W - PAD, H - PAD, [80, 80, 80], 0);

  const drawn = series.filter((s) => s.points.length > 0).slice(0, LINE_COLOURS.length);
  const pts = drawn.flatMap((s) => s.points.map((p) => ({ t: Date.parse(p.t), v: p.last })));
  if (pts.length > 0) {
    let [t0, t1] = [Math.min(...pts.map((p) => p.t)), Math.max(...pts.map((p) => p.t))];
    let [v0, v1] = [Math.min(...pts.map((p) => p.v)), Math.max(...pts.map((p) => p.v))];
    if (t0 === t1) [t0, t1] = [t0 - 1, t1 + 1];
    if (v0 === v1) [v0, v1] = [v0 - 1, v1 + 1];
    const x = (t: number) => Math.round(PAD + 4 + ((t - t0) / (t1 - t0)) * (W - 2 * PAD - 8));
    const y = (v: number) => Math.round(H - PAD - 4 - ((v - v0) / (v1 - v0)) * (H - 2 * PAD - 8));
    drawn.forEach((s, i) => {
      const { rgb } = LINE_COLOURS[i]!;
      const xy = s.points.map((p) => [x(Date.parse(p.t)), y(p.last)] as const);
      xy.forEach(([px1, py1], j) => {
        const prev = xy[j - 1];
        if (prev) line(prev[0], prev[1], px1, py1, rgb, 1);
        dot(px1, py1, rgb, 3);
      });
    });
  }
  return encodePng(px);
}

/** RGB pixels (8 bits per channel) as a PNG file. */
function encodePng(rgb: Buffer): Buffer {
  const rows = Buffer.alloc((W * 3 + 1) * H);
  for (let y = 0; y < H; y++) rgb.copy(rows, y * (W * 3 + 1) + 1, y * W * 3, (y + 1) * W * 3); // filter 0 per row
  const header = Buffer.alloc(13);
  header.writeUInt32BE(W, 0);
  header.writeUInt32BE(H, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, no filter method beyond 0, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

import sharp from 'sharp';
import { createRandom, type Random } from './random.js';

// The demo data's pictures, drawn here (SVG rendered by sharp): plugin icons, game
// screenshots and avatars. A small set, shared by every plugin and user (100,000
// plugins pick from the same few dozen), so making and storing them takes about a
// second whatever the catalogue's size. No text is drawn: no font is needed, and
// the same seed gives the same bytes.

export interface SeedPictureFiles {
  icons: Buffer[];
  screenshots: Buffer[];
  avatars: Buffer[];
}

export const PICTURE_COUNTS = { icons: 24, screenshots: 12, avatars: 16 } as const;

export async function drawPictures(seed: number): Promise<SeedPictureFiles> {
  const random = createRandom(seed ^ 0x1c0a5);
  const svgs = {
    icons: Array.from({ length: PICTURE_COUNTS.icons }, (_, i) => iconSvg(random, i)),
    screenshots: Array.from({ length: PICTURE_COUNTS.screenshots }, () => screenshotSvg(random)),
    avatars: Array.from({ length: PICTURE_COUNTS.avatars }, () => avatarSvg(random)),
  };
  const png = (svg: string) => sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
  const jpeg = (svg: string) => sharp(Buffer.from(svg)).jpeg({ quality: 82 }).toBuffer();
  return {
    icons: await Promise.all(svgs.icons.map(png)),
    screenshots: await Promise.all(svgs.screenshots.map(jpeg)),
    avatars: await Promise.all(svgs.avatars.map(png)),
  };
}

const hsl = (hue: number, saturation: number, lightness: number) => `hsl(${Math.round(hue) % 360},${saturation}%,${lightness}%)`;

const GLYPHS: Array<(random: Random) => string> = [
  () => '<circle cx="64" cy="64" r="30" fill="none" stroke="#fff" stroke-width="12"/>',
  () => '<path d="M64 26 L102 96 H26 Z" fill="#fff"/>',
  () => '<path d="M64 22 L106 64 L64 106 L22 64 Z" fill="#fff"/>',
  () => '<path d="M64 24 L99 44 V84 L64 104 L29 84 V44 Z" fill="none" stroke="#fff" stroke-width="10" stroke-linejoin="round"/>',
  (random) => Array.from({ length: 4 }, (_, i) => `<rect x="${30 + i * 18}" y="${100 - (20 + random.int(0, 50))}" width="12" height="${100}" fill="#fff"/>`).join(''),
  () => '<path d="M34 64 H94 M64 34 V94" stroke="#fff" stroke-width="14" stroke-linecap="round"/>',
  () => '<circle cx="64" cy="64" r="34" fill="#fff"/><circle cx="76" cy="54" r="26" fill="rgba(0,0,0,.35)"/>',
  () => '<path d="M30 84 L52 46 L68 70 L80 54 L100 84 Z" fill="#fff"/>',
];

function iconSvg(random: Random, index: number): string {
  const hue = (index * 137.5 + random.int(0, 30)) % 360;
  const glyph = GLYPHS[index % GLYPHS.length]!(random);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${hsl(hue, 70, 58)}"/>` +
    `<stop offset="1" stop-color="${hsl(hue + 40, 65, 38)}"/></linearGradient></defs>` +
    `<rect width="128" height="128" rx="28" fill="url(#g)"/>${glyph}</svg>`;
}

function screenshotSvg(random: Random): string {
  const width = 960;
  const height = 540;
  const sky = random.int(180, 230);
  const ground = random.int(70, 130);
  const hills = Array.from({ length: 3 }, (_, layer) => {
    const base = 300 + layer * 70;
    let d = `M0 ${height} L0 ${base}`;
    for (let x = 0; x <= width; x += 60) d += ` L${x} ${base - random.int(0, 90 - layer * 20)}`;
    return `<path d="${d} L${width} ${height} Z" fill="${hsl(ground + layer * 8, 45, 42 - layer * 9)}"/>`;
  }).join('');
  const trees = Array.from({ length: random.int(6, 14) }, () => {
    const x = random.int(20, width - 20);
    const y = random.int(420, 520);
    return `<rect x="${x - 3}" y="${y - 10}" width="6" height="14" fill="#5b3a1e"/><path d="M${x} ${y - 46} L${x + 16} ${y - 8} H${x - 16} Z" fill="${hsl(ground + 10, 55, 24)}"/>`;
  }).join('');
  // A game's interface over the scene: a hotbar, a health row and a minimap.
  const slots = Array.from({ length: 9 }, (_, i) => `<rect x="${300 + i * 40}" y="490" width="36" height="36" rx="4" fill="rgba(0,0,0,.45)" stroke="rgba(255,255,255,.7)"/>`).join('');
  const hearts = Array.from({ length: 10 }, (_, i) => `<circle cx="${306 + i * 16}" cy="474" r="6" fill="${i < random.int(4, 10) ? '#e23b3b' : 'rgba(0,0,0,.4)'}"/>`).join('');
  const minimap = `<circle cx="880" cy="80" r="58" fill="${hsl(ground, 40, 35)}" stroke="#fff" stroke-width="4"/><path d="M880 62 L890 92 L880 86 L870 92 Z" fill="#fff"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${hsl(sky, 70, 62)}"/><stop offset="1" stop-color="${hsl(sky - 20, 60, 85)}"/></linearGradient></defs>` +
    `<rect width="${width}" height="${height}" fill="url(#sky)"/><circle cx="${random.int(80, 600)}" cy="${random.int(50, 140)}" r="34" fill="#fff6c8"/>` +
    `${hills}${trees}${slots}${hearts}${minimap}</svg>`;
}

function avatarSvg(random: Random): string {
  const hue = random.int(0, 359);
  let cells = '';
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      if (!random.chance(0.5)) continue;
      for (const column of x === 2 ? [2] : [x, 4 - x]) cells += `<rect x="${8 + column * 16}" y="${8 + y * 16}" width="16" height="16"/>`;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">` +
    `<rect width="96" height="96" fill="${hsl(hue, 30, 92)}"/><g fill="${hsl(hue, 60, 45)}">${cells}</g></svg>`;
}

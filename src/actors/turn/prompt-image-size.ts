// The size a prompt image is sent at, as codex 0.171.0 computes it (probed: docs/tools.md,
// "Images"): an image fits when neither side passes 2048 pixels and it is covered by at most
// 2500 patches of 32×32; one that does not is first scaled (rounded) so its longer side is
// 2048, then, if it still covers too many patches, shrunk by area to the budget with the patch
// grid rounded down, the sides floored. The float operations are in the reference's order, so
// the sides come out the same to the pixel.

const PATCH_SIZE = 32;
const MAX_DIMENSION = 2048;
const MAX_PATCHES = 2500;

export interface ImageSize {
  width: number;
  height: number;
}

/** How many 32×32 patches cover an image of this size. */
export function patchCount(width: number, height: number): number {
  return Math.ceil(width / PATCH_SIZE) * Math.ceil(height / PATCH_SIZE);
}

/** The size an image of `width`×`height` is sent at when it is resized to fit (detail other than "original"). */
export function promptImageSize(width: number, height: number): ImageSize {
  const source = { width: Math.max(1, width), height: Math.max(1, height) };
  if (fits(source)) return source;
  const dimensionScale = Math.min(MAX_DIMENSION / Math.max(source.width, source.height), 1);
  const bounded = {
    width: Math.max(1, Math.round(source.width * dimensionScale)),
    height: Math.max(1, Math.round(source.height * dimensionScale)),
  };
  if (fits(bounded)) return bounded;
  const scale = patchBudgetScale(bounded);
  return { width: Math.max(1, Math.floor(bounded.width * scale)), height: Math.max(1, Math.floor(bounded.height * scale)) };
}

function fits({ width, height }: ImageSize): boolean {
  return width <= MAX_DIMENSION && height <= MAX_DIMENSION && patchCount(width, height) <= MAX_PATCHES;
}

function patchBudgetScale({ width, height }: ImageSize): number {
  let scale = Math.sqrt((PATCH_SIZE * PATCH_SIZE * MAX_PATCHES) / width / height);
  const patchesWide = (width * scale) / PATCH_SIZE;
  const patchesHigh = (height * scale) / PATCH_SIZE;
  scale *= Math.min(Math.floor(patchesWide) / patchesWide, Math.floor(patchesHigh) / patchesHigh);
  return scale;
}

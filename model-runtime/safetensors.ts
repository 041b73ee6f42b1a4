/**
 * Reader and writer for the safetensors format: 8-byte little-endian header
 * length, a JSON header {name: {dtype, shape, data_offsets}}, then raw data.
 * F32, F16 and BF16 are read (converted to Float32Array); F32 is written.
 */
import { SafetensorsFormatError } from './errors.js';

export interface Tensor {
  shape: number[];
  data: Float32Array;
}

export type TensorMap = Map<string, Tensor>;

const BYTES_PER_DTYPE: Record<string, number> = { F32: 4, F16: 2, BF16: 2 };
const MAX_HEADER_BYTES = 100 * 1024 * 1024;

export function parseSafetensors(bytes: Uint8Array): { tensors: TensorMap; metadata: Record<string, string> } {
  if (bytes.byteLength < 8) {
    throw new SafetensorsFormatError(`file is ${bytes.byteLength} bytes, too short for the 8-byte header length`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > MAX_HEADER_BYTES || 8 + headerLength > bytes.byteLength) {
    throw new SafetensorsFormatError(
      `header length ${headerLength} does not fit in a ${bytes.byteLength}-byte file (truncated or not safetensors)`,
    );
  }
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLength)));
  } catch (err) {
    throw new SafetensorsFormatError(`header is not valid JSON: ${(err as Error).message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new SafetensorsFormatError('header is not a JSON object');
  }
  const dataStart = 8 + headerLength;
  const dataLength = bytes.byteLength - dataStart;
  const tensors: TensorMap = new Map();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = (entry ?? {}) as Record<string, string>;
      continue;
    }
    const info = entry as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const width = typeof info?.dtype === 'string' ? BYTES_PER_DTYPE[info.dtype] : undefined;
    if (width === undefined) {
      throw new SafetensorsFormatError(`tensor ${name}: unsupported dtype ${JSON.stringify(info?.dtype)} (F32, F16, BF16 are supported)`);
    }
    const shape = info.shape;
    const offsets = info.data_offsets;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new SafetensorsFormatError(`tensor ${name}: invalid shape ${JSON.stringify(shape)}`);
    }
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isInteger(o))) {
      throw new SafetensorsFormatError(`tensor ${name}: invalid data_offsets ${JSON.stringify(offsets)}`);
    }
    const [begin, end] = offsets as [number, number];
    const count = (shape as number[]).reduce((a, b) => a * b, 1);
    if (begin < 0 || end > dataLength || end - begin !== count * width) {
      throw new SafetensorsFormatError(
        `tensor ${name}: data_offsets [${begin}, ${end}] do not match shape ${JSON.stringify(shape)} or lie outside the ${dataLength}-byte data section (file truncated?)`,
      );
    }
    tensors.set(name, { shape: shape as number[], data: decode(bytes, dataStart + begin, count, info.dtype as string) });
  }
  return { tensors, metadata };
}

function decode(bytes: Uint8Array, offset: number, count: number, dtype: string): Float32Array {
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * BYTES_PER_DTYPE[dtype]);
  if (dtype === 'F32') {
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  } else if (dtype === 'BF16') {
    const word = new Uint32Array(1);
    const asFloat = new Float32Array(word.buffer);
    for (let i = 0; i < count; i++) {
      word[0] = view.getUint16(i * 2, true) << 16;
      out[i] = asFloat[0];
    }
  } else {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(i * 2, true));
  }
  return out;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** Serialise tensors as F32 safetensors, names sorted (deterministic bytes for identical weights). */
export function serializeSafetensors(tensors: TensorMap, metadata: Record<string, string> = {}): Buffer {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let offset = 0;
  for (const name of names) {
    const t = tensors.get(name)!;
    const size = t.data.length * 4;
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + size] };
    offset += size;
  }
  let headerJson = JSON.stringify(header);
  // Pad the header with spaces so the data section is 8-byte aligned, as the reference writer does.
  while ((8 + Buffer.byteLength(headerJson)) % 8 !== 0) headerJson += ' ';
  const headerBytes = Buffer.from(headerJson, 'utf8');
  const out = Buffer.alloc(8 + headerBytes.length + offset);
  out.writeBigUInt64LE(BigInt(headerBytes.length), 0);
  headerBytes.copy(out, 8);
  let cursor = 8 + headerBytes.length;
  for (const name of names) {
    const data = tensors.get(name)!.data;
    for (let i = 0; i < data.length; i++, cursor += 4) out.writeFloatLE(data[i], cursor);
  }
  return out;
}

import { writeFileSync } from "node:fs";

/**
 * A minimal GGUF (v3) writer: enough of the format for llama.cpp to load a llama-architecture model that the project
 * makes itself (a random test model, or weights trained by our own pipeline). Layout: header, metadata key/values,
 * tensor infos, padding to the alignment, then tensor data, each tensor aligned.
 */

export type GgufScalarType =
  | "u8"
  | "i8"
  | "u16"
  | "i16"
  | "u32"
  | "i32"
  | "f32"
  | "bool"
  | "string"
  | "u64"
  | "i64"
  | "f64";

export type GgufValue =
  | { type: Exclude<GgufScalarType, "string" | "bool">; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "array"; itemType: Exclude<GgufScalarType, "string" | "bool">; values: ArrayLike<number> }
  | { type: "array"; itemType: "string"; values: readonly string[] }
  | { type: "array"; itemType: "bool"; values: readonly boolean[] };

export type GgufTensorType = "f32" | "f16";

export interface GgufTensor {
  name: string;
  /** Dimensions with the fastest-varying first (GGUF's `ne` order): a PyTorch (out, in) weight is [in, out]. */
  dims: readonly number[];
  type: GgufTensorType;
  data: Float32Array;
}

export interface GgufFile {
  metadata: ReadonlyArray<readonly [string, GgufValue]>;
  tensors: readonly GgufTensor[];
  /** Default 32, as llama.cpp expects when `general.alignment` is absent. */
  alignment?: number;
}

const VALUE_TYPE_IDS: Record<GgufScalarType | "array", number> = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
};

const TENSOR_TYPE_IDS: Record<GgufTensorType, number> = { f32: 0, f16: 1 };

/** Growable little-endian byte sink. */
class ByteWriter {
  #buffer = Buffer.alloc(1 << 16);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  #reserve(bytes: number): void {
    if (this.#length + bytes <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.#length + bytes) size *= 2;
    const next = Buffer.alloc(size);
    this.#buffer.copy(next, 0, 0, this.#length);
    this.#buffer = next;
  }

  u8(v: number) {
    this.#reserve(1);
    this.#buffer.writeUInt8(v, this.#length);
    this.#length += 1;
  }
  i8(v: number) {
    this.#reserve(1);
    this.#buffer.writeInt8(v, this.#length);
    this.#length += 1;
  }
  u16(v: number) {
    this.#reserve(2);
    this.#buffer.writeUInt16LE(v, this.#length);
    this.#length += 2;
  }
  i16(v: number) {
    this.#reserve(2);
    this.#buffer.writeInt16LE(v, this.#length);
    this.#length += 2;
  }
  u32(v: number) {
    this.#reserve(4);
    this.#buffer.writeUInt32LE(v, this.#length);
    this.#length += 4;
  }
  i32(v: number) {
    this.#reserve(4);
    this.#buffer.writeInt32LE(v, this.#length);
    this.#length += 4;
  }
  f32(v: number) {
    this.#reserve(4);
    this.#buffer.writeFloatLE(v, this.#length);
    this.#length += 4;
  }
  f64(v: number) {
    this.#reserve(8);
    this.#buffer.writeDoubleLE(v, this.#length);
    this.#length += 8;
  }
  u64(v: number) {
    this.#reserve(8);
    this.#buffer.writeBigUInt64LE(BigInt(v), this.#length);
    this.#length += 8;
  }
  i64(v: number) {
    this.#reserve(8);
    this.#buffer.writeBigInt64LE(BigInt(v), this.#length);
    this.#length += 8;
  }
  bytes(data: Uint8Array) {
    this.#reserve(data.length);
    this.#buffer.set(data, this.#length);
    this.#length += data.length;
  }
  string(s: string) {
    const encoded = Buffer.from(s, "utf8");
    this.u64(encoded.length);
    this.bytes(encoded);
  }
  padTo(alignment: number) {
    const pad = (alignment - (this.#length % alignment)) % alignment;
    this.#reserve(pad);
    this.#buffer.fill(0, this.#length, this.#length + pad);
    this.#length += pad;
  }
  result(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }
}

function writeScalar(out: ByteWriter, type: GgufScalarType, value: number | string | boolean): void {
  switch (type) {
    case "string":
      out.string(value as string);
      return;
    case "bool":
      out.u8(value ? 1 : 0);
      return;
    default:
      out[type](value as number);
  }
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE-754 binary32 → binary16 bits, round to nearest even (Node 20 has no Float16Array). */
export function toFloat16Bits(value: number): number {
  f32Scratch[0] = value;
  const x = u32Scratch[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  let e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    if (rest > midpoint || (rest === midpoint && half & 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half += 1;
  if ((half & 0x7c00) === 0x7c00) {
    e = 0x1f;
    return sign | 0x7c00;
  }
  return sign | half;
}

/** IEEE-754 binary16 bits → the number they hold (exact: every half is a double); the inverse of toFloat16Bits. */
export function fromFloat16Bits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1024 + fraction) * 2 ** (exponent - 25);
}

function tensorBytes(tensor: GgufTensor): Uint8Array {
  const count = tensor.dims.reduce((a, b) => a * b, 1);
  if (tensor.data.length !== count) {
    throw new Error(
      `GGUF tensor ${tensor.name}: dims ${tensor.dims.join("×")} need ${count} values, got ${tensor.data.length}`,
    );
  }
  if (tensor.type === "f32")
    return new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  const half = new Uint16Array(count);
  for (let i = 0; i < count; i++) half[i] = toFloat16Bits(tensor.data[i]!);
  return new Uint8Array(half.buffer);
}

/** Serialise a GGUF file to bytes. */
export function encodeGguf(file: GgufFile): Buffer {
  const alignment = file.alignment ?? 32;
  const out = new ByteWriter();
  out.bytes(Buffer.from("GGUF", "ascii"));
  out.u32(3);
  out.u64(file.tensors.length);
  out.u64(file.metadata.length);

  for (const [key, value] of file.metadata) {
    out.string(key);
    out.u32(VALUE_TYPE_IDS[value.type]);
    if (value.type === "array") {
      out.u32(VALUE_TYPE_IDS[value.itemType]);
      out.u64(value.values.length);
      for (let i = 0; i < value.values.length; i++)
        writeScalar(out, value.itemType, value.values[i] as never);
    } else {
      writeScalar(out, value.type, value.value);
    }
  }

  const payloads = file.tensors.map(tensorBytes);
  let offset = 0;
  file.tensors.forEach((tensor, i) => {
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(TENSOR_TYPE_IDS[tensor.type]);
    out.u64(offset);
    offset += payloads[i]!.length;
    offset += (alignment - (offset % alignment)) % alignment;
  });

  out.padTo(alignment);
  for (const payload of payloads) {
    out.bytes(payload);
    out.padTo(alignment);
  }
  return out.result();
}

export function writeGguf(path: string, file: GgufFile): void {
  writeFileSync(path, encodeGguf(file));
}

import { MsbFirstBits } from './bit-writers';
import type { Rgb } from './solid-image';

export interface H264Frames {
  sps: Buffer;
  pps: Buffer;
  /** One NAL unit per frame, the first an IDR picture, the others P pictures. */
  frames: Buffer[];
}

const LOG2_MAX_FRAME_NUM = 16;
const PROFILE_BASELINE = 66;
const LEVEL_5_1 = 51;
const MB_TYPE_I_PCM = 25;
const MB_TYPE_I16X16_DC_PREDICTION_NO_RESIDUAL = 3;
const CHROMA_DC_PREDICTION = 0;
const NO_DEBLOCKING = 1;

/**
 * A constrained-baseline H.264 stream of one colour, written without an encoder library.
 *
 * The IDR picture's first macroblock is I_PCM (raw samples of the colour); every other one is
 * Intra 16×16 DC prediction with no residual, so it copies its neighbours' colour: about one
 * byte a macroblock. Each following picture is a P picture of skipped macroblocks. Sizes that
 * are not multiples of 16 are coded larger and cropped.
 */
export function encodeH264(width: number, height: number, frameCount: number, colour: Rgb): H264Frames {
  const widthMbs = Math.ceil(width / 16);
  const heightMbs = Math.ceil(height / 16);
  const frames = [idrPicture(widthMbs, heightMbs, limitedRangeYuv(colour))];
  for (let frameNum = 1; frameNum < frameCount; frameNum++) {
    frames.push(skippedPicture(frameNum % (1 << LOG2_MAX_FRAME_NUM), widthMbs * heightMbs));
  }
  return {
    sps: sequenceParameterSet(width, height, widthMbs, heightMbs),
    pps: pictureParameterSet(),
    frames,
  };
}

function sequenceParameterSet(width: number, height: number, widthMbs: number, heightMbs: number): Buffer {
  const bits = new MsbFirstBits()
    .write(PROFILE_BASELINE, 8)
    .write(0b11000000, 8) // constraint_set0 and constraint_set1: constrained baseline
    .write(LEVEL_5_1, 8)
    .writeUnsignedGolomb(0) // seq_parameter_set_id
    .writeUnsignedGolomb(LOG2_MAX_FRAME_NUM - 4)
    .writeUnsignedGolomb(2) // pic_order_cnt_type: output order is decoding order
    .writeUnsignedGolomb(1) // max_num_ref_frames
    .write(0, 1) // gaps_in_frame_num_value_allowed_flag
    .writeUnsignedGolomb(widthMbs - 1)
    .writeUnsignedGolomb(heightMbs - 1)
    .write(1, 1) // frame_mbs_only_flag
    .write(1, 1); // direct_8x8_inference_flag
  const cropRight = (widthMbs * 16 - width) / 2;
  const cropBottom = (heightMbs * 16 - height) / 2;
  const cropped = cropRight > 0 || cropBottom > 0;
  bits.write(cropped ? 1 : 0, 1);
  if (cropped)
    bits
      .writeUnsignedGolomb(0)
      .writeUnsignedGolomb(cropRight)
      .writeUnsignedGolomb(0)
      .writeUnsignedGolomb(cropBottom);
  bits.write(0, 1); // vui_parameters_present_flag: the MP4 carries the timing
  return nalUnit(3, 7, trailingBits(bits));
}

function pictureParameterSet(): Buffer {
  const bits = new MsbFirstBits()
    .writeUnsignedGolomb(0) // pic_parameter_set_id
    .writeUnsignedGolomb(0) // seq_parameter_set_id
    .write(0, 1) // CAVLC
    .write(0, 1) // bottom_field_pic_order_in_frame_present_flag
    .writeUnsignedGolomb(0) // num_slice_groups_minus1
    .writeUnsignedGolomb(0) // num_ref_idx_l0_default_active_minus1
    .writeUnsignedGolomb(0) // num_ref_idx_l1_default_active_minus1
    .write(0, 1) // weighted_pred_flag
    .write(0, 2) // weighted_bipred_idc
    .writeSignedGolomb(0) // pic_init_qp_minus26
    .writeSignedGolomb(0) // pic_init_qs_minus26
    .writeSignedGolomb(0) // chroma_qp_index_offset
    .write(1, 1) // deblocking_filter_control_present_flag
    .write(0, 1) // constrained_intra_pred_flag
    .write(0, 1); // redundant_pic_cnt_present_flag
  return nalUnit(3, 8, trailingBits(bits));
}

function idrPicture(widthMbs: number, heightMbs: number, colour: number[]): Buffer {
  const bits = new MsbFirstBits()
    .writeUnsignedGolomb(0) // first_mb_in_slice
    .writeUnsignedGolomb(7) // slice_type: I, as every slice of the picture
    .writeUnsignedGolomb(0) // pic_parameter_set_id
    .write(0, LOG2_MAX_FRAME_NUM) // frame_num
    .writeUnsignedGolomb(0) // idr_pic_id
    .write(0, 1) // no_output_of_prior_pics_flag
    .write(0, 1) // long_term_reference_flag
    .writeSignedGolomb(0) // slice_qp_delta
    .writeUnsignedGolomb(NO_DEBLOCKING);
  // I_PCM: raw samples, which H.264 before 2005 did not allow to be 0.
  const sample = (value: number) => Math.min(255, Math.max(1, value));
  bits.writeUnsignedGolomb(MB_TYPE_I_PCM).align(0);
  bits.writeBytes(
    Buffer.concat([
      Buffer.alloc(256, sample(colour[0])),
      Buffer.alloc(64, sample(colour[1])),
      Buffer.alloc(64, sample(colour[2])),
    ]),
  );
  for (let mb = 1; mb < widthMbs * heightMbs; mb++) {
    bits.writeUnsignedGolomb(MB_TYPE_I16X16_DC_PREDICTION_NO_RESIDUAL);
    bits.writeUnsignedGolomb(CHROMA_DC_PREDICTION);
    bits.writeSignedGolomb(0); // mb_qp_delta
    // The Intra16x16 DC block is always coded; here with no coefficient. Its code table depends on
    // nC, the coefficient count of the neighbours: an I_PCM neighbour counts 16, the others 0.
    const x = mb % widthMbs;
    const y = Math.floor(mb / widthMbs);
    const besideThePcmMacroblock = (x === 1 && y === 0) || (x === 0 && y === 1);
    if (besideThePcmMacroblock) bits.write(0b000011, 6);
    else bits.write(1, 1);
  }
  return nalUnit(3, 5, trailingBits(bits));
}

function skippedPicture(frameNum: number, macroblocks: number): Buffer {
  const bits = new MsbFirstBits()
    .writeUnsignedGolomb(0) // first_mb_in_slice
    .writeUnsignedGolomb(5) // slice_type: P, as every slice of the picture
    .writeUnsignedGolomb(0) // pic_parameter_set_id
    .write(frameNum, LOG2_MAX_FRAME_NUM)
    .write(0, 1) // num_ref_idx_active_override_flag
    .write(0, 1) // ref_pic_list_modification_flag_l0
    .write(0, 1) // adaptive_ref_pic_marking_mode_flag
    .writeSignedGolomb(0) // slice_qp_delta
    .writeUnsignedGolomb(NO_DEBLOCKING)
    .writeUnsignedGolomb(macroblocks); // mb_skip_run: the whole picture
  return nalUnit(2, 1, trailingBits(bits));
}

/** BT.601 studio range, what a decoder assumes of a stream that does not say. */
function limitedRangeYuv({ red, green, blue }: Rgb): number[] {
  const [r, g, b] = [red / 255, green / 255, blue / 255];
  return [
    16 + 65.481 * r + 128.553 * g + 24.966 * b,
    128 - 37.797 * r - 74.203 * g + 112 * b,
    128 + 112 * r - 93.786 * g - 18.214 * b,
  ].map(Math.round);
}

function trailingBits(bits: MsbFirstBits): Buffer {
  return bits.write(1, 1).align(0).toBuffer();
}

/** A NAL unit: its header byte and the payload with emulation prevention bytes inserted. */
function nalUnit(refIdc: number, type: number, payload: Buffer): Buffer {
  const escaped: number[] = [(refIdc << 5) | type];
  let zeros = 0;
  for (const byte of payload) {
    if (zeros >= 2 && byte <= 3) {
      escaped.push(3);
      zeros = 0;
    }
    escaped.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(escaped);
}

export interface Rgb {
  red: number;
  green: number;
  blue: number;
}

/**
 * Every mock image is one colour over its whole area (the colour comes from the prompt): real,
 * decodable files of any size, encoded in milliseconds without an image library.
 */
export interface SolidImage extends Rgb {
  width: number;
  height: number;
  /** 255 is opaque; below it the file carries an alpha channel. */
  alpha: number;
}

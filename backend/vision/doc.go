// Package vision readies the images a user gives a question (dropped or
// pasted into Ask, `rehome ask --image FILE`) for a model that reads
// images: PNG, JPEG, WebP and GIF (its first frame). The file's size and
// the image's width, height and pixels are checked from its header before
// anything is decoded, so a decompression bomb (a small file claiming
// 30,000 × 30,000 pixels) is refused in words; a damaged file is refused
// in words too. The image is then decoded and encoded again — which drops
// EXIF (the camera, the place, the time) and every other metadata block —
// scaled down to MaxSendSide, and returned as a data: URL for an OpenAI
// image_url content part.
//
// Picture readies an assistant's picture the same way (PNG, JPEG or WebP,
// the same bounds, scaled to PictureSide), and CheckPicture vets a kept
// one that comes from a bundle or a page.
package vision

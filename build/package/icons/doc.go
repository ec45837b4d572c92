// Command icons writes the app icon in the hicolor sizes a desktop menu
// asks for, scaled down from build/appicon.png by averaging each output
// pixel's source area (premultiplied alpha), with the standard library
// only, so the package build needs no ImageMagick:
//
//	go run ./build/package/icons build/appicon.png OUTDIR 16 32 48 …
//
// It writes OUTDIR/<n>x<n>/apps/rehome.png for each size.
package main

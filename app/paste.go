package app

import (
	"rehome/backend/core"
)

// Pasting an image in the window. WebKitGTK hands a page no image pasted
// from the desktop's clipboard (its paste event carries no file: WebKitGTK
// bug 320303), so the window reads the clipboard itself, natively, when the
// page is pasted into; a browser's page uploads the pasted file instead.

// ClipboardReader is what a window adds to read the desktop's clipboard.
type ClipboardReader interface {
	// ClipboardImage returns the clipboard's image as the bytes its owner
	// offers (PNG, else JPEG, WebP or GIF), read up to limit bytes; nil
	// when the clipboard holds no image (text, or nothing).
	ClipboardImage(limit int) ([]byte, error)
}

// PasteImage keeps the image on the clipboard as an upload, the question's
// file like a dropped one, within the bounds of an image given to a
// question (core.KeepPastedImage: a bomb is refused in words). With no
// image on the clipboard it answers an empty path: the paste was text, and
// the page pastes it itself.
func (svc *SystemService) PasteImage() (core.Upload, error) {
	a := svc.app
	cr, ok := a.window().(ClipboardReader)
	if !ok {
		return core.Upload{}, errNoClipboard
	}
	data, err := cr.ClipboardImage(core.MaxPastedImage)
	if err != nil || data == nil {
		return core.Upload{}, err
	}
	up, err := a.core.KeepPastedImage(data)
	if err != nil {
		a.log.Warn("paste refused", "size", len(data), "err", err)
		return core.Upload{}, err
	}
	a.log.Info("image pasted", "path", up.Path, "size", up.Size, "again", up.Again)
	return up, nil
}

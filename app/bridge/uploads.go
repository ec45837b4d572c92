package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"rehome/app"
	"rehome/backend/bytesize"
	"rehome/backend/core"
)

// Browser uploads (POST /api/upload): streamed to <data>/uploads, capped,
// hashed, under a clean name; the window reads files in place instead.

// MaxUpload caps one browser upload.
const MaxUpload int64 = 4 << 30

// UploadReply is what POST /api/upload answers.
type UploadReply struct {
	Path  string `json:"path,omitempty"`
	Name  string `json:"name,omitempty"`
	Size  int64  `json:"size,omitempty"`
	Error string `json:"error,omitempty"`
}

// NewUploadHandler returns the handler of POST /api/upload for the
// browser, which cannot hand over a file's path: the raw body is the
// file, X-File-Name its name (URL-encoded). It streams the body to
// <data>/uploads/<content hash>/<clean name>, up to MaxUpload bytes, and
// answers the path for PreviewFile and RunCode; the same file uploaded
// again is stored once. Mount it behind the token check.
func NewUploadHandler(a *app.App) http.Handler {
	return newUploadHandler(a, MaxUpload)
}

func newUploadHandler(a *app.App, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply := func(code int, v UploadReply) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_ = json.NewEncoder(w).Encode(v)
		}
		if r.Method != http.MethodPost {
			reply(http.StatusMethodNotAllowed, UploadReply{Error: "use POST"})
			return
		}
		raw, err := url.PathUnescape(r.Header.Get("X-File-Name"))
		if err != nil || raw == "" {
			reply(http.StatusBadRequest, UploadReply{Error: "the upload has no file name (X-File-Name)"})
			return
		}
		name := app.CleanFileName(raw)
		if r.ContentLength > limit {
			reply(http.StatusRequestEntityTooLarge, UploadReply{Error: fmt.Sprintf("%s is %s; the browser can send at most %s. Open it in the rehome window instead, which reads files in place.", name, bytesize.Format(r.ContentLength), bytesize.Format(limit))})
			return
		}
		// Streamed while hashed; the same file dropped again lands on the
		// same path instead of a second copy (core.KeepUpload).
		up, err := app.KeepUpload(a, name, r.Body, r.ContentLength, limit)
		switch {
		case errors.Is(err, core.ErrUploadStore):
			reply(http.StatusInternalServerError, UploadReply{Error: err.Error()})
			return
		case err != nil:
			app.Logger(a).Warn("upload failed", "name", name, "err", err)
			reply(http.StatusBadRequest, UploadReply{Error: "upload of " + name + " failed: " + err.Error()})
			return
		}
		said := "uploaded"
		if up.Again {
			said = "upload already stored"
		}
		app.Logger(a).Info(said, "name", name, "size", up.Size)
		reply(http.StatusOK, UploadReply{Path: up.Path, Name: name, Size: up.Size})
	})
}

package app

import (
	"rehome/backend/browse"
	"rehome/backend/core"
)

// Settings → Browsing: the Kiwix libraries carried for browsing offline,
// the search engine, the LAN switch; and the window's reader of a
// library's article (a zim:// citation opens there, rendered and
// sanitised by the page).

// LibraryProgress is a step of adding a library, sent as the
// "library:progress" event.
type LibraryProgress struct {
	Step  string `json:"step"`
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
}

// BrowsingSettings returns Settings → Browsing (the Brave key never
// comes back, only whether one is set).
func (svc *KnowledgeService) BrowsingSettings() (core.BrowsingSettings, error) {
	a := svc.app
	s, err := a.core.Browse().Settings()
	return s, uiError(err)
}

// SetBrowsingSettings changes them (nil fields stay; "" clears one).
func (svc *KnowledgeService) SetBrowsingSettings(ch core.BrowsingChange) (core.BrowsingSettings, error) {
	a := svc.app
	s, err := a.core.Browse().SaveSettings(ch)
	return s, uiError(err)
}

// Libraries lists the carried Kiwix libraries.
func (svc *KnowledgeService) Libraries() ([]core.LibraryView, error) {
	a := svc.app
	l, err := a.core.Browse().Libraries()
	return l, uiError(err)
}

// AddLibrary checks a .zim file the user gave (the native dialog, a drop)
// and registers it, copied into the data folder with copyIn; progress
// goes out as "library:progress".
func (svc *KnowledgeService) AddLibrary(path string, copyIn bool) (browse.Library, error) {
	a := svc.app
	clean, err := a.readyFile(path)
	if err != nil {
		return browse.Library{}, err
	}
	lib, err := a.core.Browse().AddLibrary(a.ctx, clean, browse.AddOptions{Copy: copyIn, Progress: func(step string, done, total int64) {
		a.emit("library:progress", LibraryProgress{Step: step, Done: done, Total: total})
	}})
	return lib, uiError(err)
}

// RemoveLibrary forgets a library (rehome's copy deleted, the user's
// file never).
func (svc *KnowledgeService) RemoveLibrary(name string) (browse.Library, error) {
	a := svc.app
	l, err := a.core.Browse().RemoveLibrary(name)
	return l, uiError(err)
}

// SearchLibraries searches the carried libraries as web_search does.
func (svc *KnowledgeService) SearchLibraries(query string) (browse.SearchResult, error) {
	a := svc.app
	r, err := a.core.Browse().Search(a.ctx, query, browse.SearchOptions{})
	return r, uiError(err)
}

// OpenArticle opens a library's article (zim://LIBRARY/PATH) for the
// window's reader: its title and its body as safe HTML, straight from
// kiwix-serve (core.Browse.Read). Web pages are not fetched here: the
// window opens them in the user's browser.
func (svc *KnowledgeService) OpenArticle(address string) (core.Reading, error) {
	a := svc.app
	r, err := a.core.Browse().Read(a.ctx, address)
	return r, uiError(err)
}

// PickLibraryFile opens the native dialog to choose a .zim file; ""
// when the user cancels.
func (svc *KnowledgeService) PickLibraryFile() (string, error) {
	a := svc.app
	return a.pickGiven("Choose a Kiwix library (.zim)", FileFilter{Name: "Kiwix libraries (ZIM)", Patterns: "*.zim"})
}

package tinymodel

// BrowseScript searches the carried library with web_search, opens the
// json module's page (zim://py/library/json.html: the tests add their
// Python-docs ZIM as "py") with open_url, then answers citing [1] (the
// search's first hit, which the opened page is cited as too) and [2]
// (its second): the tools of backend/core/browse_tools.go.
func BrowseScript() Script {
	return Script{
		Calls: []Call{
			{Before: []string{"I search", " the library."}, Name: "web_search", Args: []string{`{"query": `, `"json decoder"}`}},
			{Before: []string{"I open", " the json page."}, Name: "open_url", Args: []string{`{"url": `, `"zim://py/library/json.html"}`}},
		},
		Answer: []string{"json.loads decodes", " JSON text [1];", " the tutorial", " shows it too [2]."},
	}
}

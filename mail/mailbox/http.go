package mailbox

import (
	"encoding/json"
	"html/template"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Handler serves the kept messages, newest first: GET /mail as an HTML page and GET
// /mail/messages.json as JSON. Everything shown is escaped; links in the text part are made
// clickable (http and https only).
func (m *Mailbox) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /mail", m.servePage)
	mux.HandleFunc("GET /mail/{$}", m.servePage)
	mux.HandleFunc("GET /mail/messages.json", m.serveJSON)
	return mux
}

func (m *Mailbox) newestFirst() []Message {
	msgs := m.Messages()
	slices.Reverse(msgs)
	return msgs
}

func (m *Mailbox) serveJSON(w http.ResponseWriter, r *http.Request) {
	msgs := m.newestFirst()
	if msgs == nil {
		msgs = []Message{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"messages": msgs})
}

func (m *Mailbox) servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The HTML part is shown as source, never rendered: the page runs no message's markup.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_ = page.Execute(w, m.newestFirst())
}

var linkPattern = regexp.MustCompile(`https?://[^\s<>"']+`)

// linkify escapes text and makes its http(s) links clickable.
func linkify(text string) template.HTML {
	var b strings.Builder
	last := 0
	for _, loc := range linkPattern.FindAllStringIndex(text, -1) {
		b.WriteString(template.HTMLEscapeString(text[last:loc[0]]))
		u := template.HTMLEscapeString(text[loc[0]:loc[1]])
		b.WriteString(`<a href="` + u + `" rel="noreferrer">` + u + `</a>`)
		last = loc[1]
	}
	b.WriteString(template.HTMLEscapeString(text[last:]))
	return template.HTML(b.String())
}

var page = template.Must(template.New("mail").Funcs(template.FuncMap{"linkify": linkify}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mailbox</title>
<style>body{font-family:sans-serif;margin:2em;max-width:60em}article{border:1px solid #ccc;padding:1em;margin:1em 0}pre{white-space:pre-wrap}dt{font-weight:bold}</style>
</head><body>
<h1>Mailbox</h1>
<p>{{len .}} message(s), newest first. <a href="/mail/messages.json">JSON</a></p>
{{range .}}<article>
<h2>{{.Subject}}</h2>
<dl>
<dt>From</dt><dd>{{.FromName}} &lt;{{.From}}&gt;</dd>
<dt>To</dt><dd>{{range $i, $a := .To}}{{if $i}}, {{end}}{{$a}}{{end}}</dd>
<dt>Date</dt><dd>{{.Date}}</dd>
<dt>Message-ID</dt><dd>{{.MessageID}}</dd>
</dl>
<pre>{{linkify .Text}}</pre>
{{if .HTML}}<details><summary>HTML part (source)</summary><pre>{{.HTML}}</pre></details>{{end}}
{{if .ParseError}}<p>Could not read all of it: {{.ParseError}}</p>{{end}}
</article>{{end}}
</body></html>
`))

package flow

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// Form is one HTML form: its method, absolute action URL, the values a browser would submit
// (hidden, text and other inputs, checked boxes, text areas; a name repeated keeps every value)
// and its submit buttons, which count only when pressed (Submission).
type Form struct {
	Method  string
	Action  string
	Values  url.Values
	Buttons []Button
}

// Button is a named submit button.
type Button struct{ Name, Value string }

// Submission returns the values a browser submits when button (a button's name, or "") is
// pressed.
func (f Form) Submission(button string) url.Values {
	v := url.Values{}
	for k, vs := range f.Values {
		v[k] = append([]string(nil), vs...)
	}
	for _, b := range f.Buttons {
		if b.Name == button && button != "" {
			v.Set(b.Name, b.Value)
			break
		}
	}
	return v
}

// ParseForms returns the forms of an HTML page fetched from base (nil: actions are left as
// written). The page comes from outside, so nothing in it may make the parser fail: fields
// outside any form are dropped and an action that is not a URL is kept as written.
func ParseForms(base *url.URL, page []byte) []Form {
	var out []Form
	z := html.NewTokenizer(bytes.NewReader(page))
	textarea := ""
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		tok := z.Token()
		attr := func(name string) (string, bool) {
			for _, a := range tok.Attr {
				if a.Key == name {
					return a.Val, true
				}
			}
			return "", false
		}
		start := tt == html.StartTagToken || tt == html.SelfClosingTagToken
		switch {
		case start && tok.Data == "form":
			action, _ := attr("action")
			method, _ := attr("method")
			abs := action
			if base != nil {
				if u, err := base.Parse(action); err == nil {
					abs = u.String()
				}
			}
			out = append(out, Form{Method: strings.ToUpper(method), Action: abs, Values: url.Values{}})
		case tt == html.EndTagToken && tok.Data == "form", len(out) == 0:
		case start && tok.Data == "input":
			name, _ := attr("name")
			typ, _ := attr("type")
			val, _ := attr("value")
			_, checked := attr("checked")
			switch {
			case name == "":
			case typ == "submit" || typ == "image":
				out[len(out)-1].Buttons = append(out[len(out)-1].Buttons, Button{name, val})
			case (typ == "checkbox" || typ == "radio") && !checked:
			default:
				out[len(out)-1].Values.Add(name, val)
			}
		case start && tok.Data == "button":
			name, _ := attr("name")
			val, _ := attr("value")
			if typ, _ := attr("type"); name != "" && (typ == "" || typ == "submit") {
				out[len(out)-1].Buttons = append(out[len(out)-1].Buttons, Button{name, val})
			}
		case start && tok.Data == "textarea":
			textarea, _ = attr("name")
			if textarea != "" {
				out[len(out)-1].Values.Set(textarea, "")
			}
		case tt == html.TextToken && textarea != "":
			out[len(out)-1].Values.Set(textarea, tok.Data)
		case tt == html.EndTagToken && tok.Data == "textarea":
			textarea = ""
		}
	}
}

// FormWith returns the first form of page, the answer to GET pageURL, that has a field named
// field (ParseForms; its buttons are left for the caller to choose).
func FormWith(pageURL string, page []byte, field string) (Form, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return Form{}, err
	}
	for _, f := range ParseForms(base, page) {
		if f.Values.Has(field) {
			return f, nil
		}
	}
	return Form{}, fmt.Errorf("no form with %s on the page", field)
}

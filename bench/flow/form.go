package flow

import (
	"bytes"
	"fmt"
	"net/url"

	"golang.org/x/net/html"
)

// Form is one form of a page: where it posts, made absolute, and its inputs' values.
type Form struct {
	Action string
	Values url.Values
}

// FormWith returns the first form of page, the answer to GET pageURL, that has an input named
// field, with its inputs (hidden ones included; submit buttons are left for the caller to
// choose).
func FormWith(pageURL string, page []byte, field string) (Form, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return Form{}, err
	}
	var forms []Form
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		attr := func(name string) string {
			for _, a := range tok.Attr {
				if a.Key == name {
					return a.Val
				}
			}
			return ""
		}
		switch {
		case tok.Data == "form":
			forms = append(forms, Form{Action: resolve(base, attr("action")), Values: url.Values{}})
		case tok.Data == "input" && len(forms) > 0 && attr("name") != "" && attr("type") != "submit":
			forms[len(forms)-1].Values.Set(attr("name"), attr("value"))
		}
	}
	for _, f := range forms {
		if _, ok := f.Values[field]; ok {
			return f, nil
		}
	}
	return Form{}, fmt.Errorf("no form with %s on the page", field)
}

// resolve makes a form action absolute against the page's URL.
func resolve(base *url.URL, ref string) string {
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(r).String()
}

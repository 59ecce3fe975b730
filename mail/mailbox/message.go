package mailbox

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
)

// Message is one message the mailbox received, parsed as far as it could be.
type Message struct {
	// Seq numbers the messages in arrival order, from 1.
	Seq          int       `json:"seq"`
	ReceivedAt   time.Time `json:"received_at"`
	EnvelopeFrom string    `json:"envelope_from"`
	EnvelopeTo   []string  `json:"envelope_to"`
	// From and To are the headers' addresses; FromName the From display name.
	From      string   `json:"from"`
	FromName  string   `json:"from_name"`
	To        []string `json:"to"`
	Subject   string   `json:"subject"`
	MessageID string   `json:"message_id"`
	Date      string   `json:"date"`
	// ContentType is the top-level media type ("multipart/alternative").
	ContentType string `json:"content_type"`
	Text        string `json:"text"`
	HTML        string `json:"html"`
	// ParseError says what could not be read, if anything.
	ParseError string `json:"parse_error,omitempty"`
	Raw        []byte `json:"-"`
}

// maxParts bounds the parts Parse walks, nested ones included.
const maxParts = 50

// Parse reads a message as received. It never fails: what it cannot read it leaves empty and
// notes in ParseError.
func Parse(raw []byte) Message {
	msg := Message{Raw: raw}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		msg.ParseError = "header: " + err.Error()
		return msg
	}
	dec := mime.WordDecoder{}
	header := func(k string) string {
		v := m.Header.Get(k)
		if d, err := dec.DecodeHeader(v); err == nil {
			return d
		}
		return v
	}
	msg.Subject = header("Subject")
	msg.MessageID = strings.Trim(strings.TrimSpace(m.Header.Get("Message-Id")), "<>")
	msg.Date = m.Header.Get("Date")
	if a, err := m.Header.AddressList("From"); err == nil && len(a) > 0 {
		msg.From, msg.FromName = a[0].Address, a[0].Name
	}
	if a, err := m.Header.AddressList("To"); err == nil {
		for _, x := range a {
			msg.To = append(msg.To, x.Address)
		}
	}
	parts := 0
	msg.ContentType = readPart(&msg, m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), m.Body, &parts, 0)
	return msg
}

// readPart stores a text/plain or text/html body in msg, or walks a multipart one; it returns
// the part's media type.
func readPart(msg *Message, contentType, encoding string, body io.Reader, parts *int, depth int) string {
	*parts++
	if *parts > maxParts || depth > 5 {
		msg.ParseError = "too many parts"
		return ""
	}
	if contentType == "" {
		contentType = "text/plain"
	}
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		msg.ParseError = "content type: " + err.Error()
		return ""
	}
	if strings.HasPrefix(media, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				msg.ParseError = "multipart: " + err.Error()
				break
			}
			readPart(msg, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, parts, depth+1)
			if msg.ParseError != "" {
				break
			}
		}
		return media
	}
	if media != "text/plain" && media != "text/html" {
		return media
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, &newlineSkipper{r: body})
	}
	b, err := io.ReadAll(io.LimitReader(body, maxMessageBytes))
	if err != nil {
		msg.ParseError = media + " body: " + err.Error()
	}
	if media == "text/plain" && msg.Text == "" {
		msg.Text = string(b)
	} else if media == "text/html" && msg.HTML == "" {
		msg.HTML = string(b)
	}
	return media
}

// newlineSkipper drops CR and LF, which base64 bodies wrap at 76 columns.
type newlineSkipper struct{ r io.Reader }

func (n *newlineSkipper) Read(p []byte) (int, error) {
	for {
		k, err := n.r.Read(p)
		j := 0
		for _, c := range p[:k] {
			if c != '\r' && c != '\n' {
				p[j] = c
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}

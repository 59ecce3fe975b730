package mail

// Message is one e-mail, rendered.
type Message struct {
	// SchoolID names the school the message is sent for: its From address and name come from
	// the school's settings.
	SchoolID int64
	// Kind names the message in logs and metrics ("invitation", "password_reset",
	// "email_change").
	Kind    string
	To      string
	ToName  string
	Subject string
	Text    string
	HTML    string
}

package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// The contact notice: a signed-in user's message about a record, mailed
// to the contact its dataset's EML names, with the user in Cc and as
// Reply-To, so that the publisher's answer reaches the user (the old GBIF
// portal's feedback mail left the sender out, and answers never arrived).
// The sender's address is the account's, never one typed into the form:
// the service relays mail only to its own users and the publishers. Each
// message is recorded (contact_messages) in the transaction that queues
// its notice; the rows count a user's messages for the daily limit.

// NoticeContact relays a user's message to a record's publisher
// (QueueContact).
const NoticeContact NoticeKind = "contact"

// ErrTooManyMessages refuses a message past the sender's daily limit.
var ErrTooManyMessages = errors.New("too many messages")

// ErrNoMail refuses what needs mail on a service without SMTP.
var ErrNoMail = errors.New("this service sends no mail")

// ContactMessage is a user's message to a record's publisher.
type ContactMessage struct {
	// Sender is the signed-in user: the message goes in Cc to the
	// account's address. SenderName is how the user signs (default: the
	// user name).
	Sender     User
	SenderName string
	// To and ToName are the dataset's contact (from its EML).
	To, ToName string
	// The record: its gbifID, dataset and page.
	GBIFID                   int64
	DatasetKey, DatasetTitle string
	RecordURL                string
	Subject, Body            string
	// Language is the language of the notice's own words (the sender's
	// page's).
	Language string
}

// contactData is what the contact notice's templates see (.Contact).
type contactData struct {
	SenderName, SenderEmail, Recipient string
	GBIFID                             int64
	DatasetKey, DatasetTitle           string
	RecordURL, Subject, Body           string
}

// Limits of a message.
const (
	maxContactSubject = 200
	maxContactBody    = 5000
)

// CanMail reports whether the service sends mail.
func (s *Service) CanMail() bool { return s.mailer != nil }

// QueueContact records m and queues its notice, unless the sender has sent
// perDay messages in the last 24 hours (ErrTooManyMessages). It returns
// the message's id.
func (s *Service) QueueContact(ctx context.Context, m ContactMessage, perDay int) (string, error) {
	if s.mailer == nil {
		return "", ErrNoMail
	}
	m.Subject = strings.Join(strings.Fields(m.Subject), " ")
	m.Body = strings.TrimSpace(m.Body)
	m.SenderName = strings.Join(strings.Fields(m.SenderName), " ")
	if m.SenderName == "" {
		m.SenderName = m.Sender.Name
	}
	switch {
	case m.Subject == "" || m.Body == "":
		return "", fmt.Errorf("%w: a message needs a subject and a text", ErrInvalidRequest)
	case utf8.RuneCountInString(m.Subject) > maxContactSubject:
		return "", fmt.Errorf("%w: subject longer than %d characters", ErrInvalidRequest, maxContactSubject)
	case utf8.RuneCountInString(m.Body) > maxContactBody:
		return "", fmt.Errorf("%w: message longer than %d characters", ErrInvalidRequest, maxContactBody)
	case utf8.RuneCountInString(m.SenderName) > 200:
		return "", fmt.Errorf("%w: name longer than 200 characters", ErrInvalidRequest)
	case !utf8.ValidString(m.Subject + m.Body + m.SenderName):
		return "", fmt.Errorf("%w: the message is not valid UTF-8", ErrInvalidRequest)
	}
	if _, err := netmail.ParseAddress(m.Sender.Email); err != nil || m.Sender.Email == "" {
		return "", fmt.Errorf("%w: your account has no valid e-mail address to send from and receive the answer at", ErrInvalidRequest)
	}
	if _, err := netmail.ParseAddress(m.To); err != nil {
		return "", fmt.Errorf("%w: the dataset names no contact address", ErrNotFound)
	}
	id := randomToken()[:22]
	now := time.Now()
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.lockCreator(ctx, tx, m.Sender.Name); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.db.q("SELECT count(*) FROM contact_messages WHERE sender = ? AND created > ?"),
			m.Sender.Name, now.Add(-24*time.Hour).UnixMilli()).Scan(&n); err != nil {
			return err
		}
		if n >= perDay {
			return fmt.Errorf("%w: %d messages in 24 hours is the most one user may send", ErrTooManyMessages, perDay)
		}
		if _, err := tx.ExecContext(ctx, s.db.q(`INSERT INTO contact_messages (id, sender, sender_name, sender_email,
			recipient, recipient_name, gbif_id, dataset_key, dataset_title, record_url, subject, body, language, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), id, m.Sender.Name, m.SenderName, m.Sender.Email, m.To, m.ToName,
			m.GBIFID, m.DatasetKey, m.DatasetTitle, m.RecordURL, m.Subject, m.Body, m.Language, now.UnixMilli()); err != nil {
			return fmt.Errorf("record message: %w", err)
		}
		return s.queueNoticeTx(ctx, tx, notifyArgs{Key: id, Notice: NoticeContact})
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// composeContact is the contact notice of message a.Key.
func (s *Service) composeContact(ctx context.Context, a notifyArgs) (*notice, error) {
	var c contactData
	var sender, to, lang string
	err := s.db.SQL.QueryRowContext(ctx, s.db.q(`SELECT sender, sender_name, sender_email, recipient, recipient_name,
		gbif_id, dataset_key, dataset_title, record_url, subject, body, language FROM contact_messages WHERE id = ?`), a.Key).
		Scan(&sender, &c.SenderName, &c.SenderEmail, &to, &c.Recipient, &c.GBIFID, &c.DatasetKey, &c.DatasetTitle,
			&c.RecordURL, &c.Subject, &c.Body, &lang)
	if errors.Is(err, sql.ErrNoRows) {
		s.logger.WarnContext(ctx, "contact message gone", "id", a.Key)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l := s.mail.pick(lang)
	d := noticeData{Portal: s.cfg.Portal.Name, Creator: sender, Contact: c}
	n, err := s.finishNotice(l, NoticeContact, string(NoticeContact)+"/"+a.Key, "", []string{to}, d)
	if err != nil {
		return nil, err
	}
	n.msg.Cc = []string{c.SenderEmail}
	n.msg.ReplyTo = netmailAddress(c.SenderName, c.SenderEmail)
	n.msg.Relayed = true
	return n, nil
}

// netmailAddress is "Name <address>" with the name quoted as needed.
func netmailAddress(name, addr string) string {
	return (&netmail.Address{Name: name, Address: addr}).String()
}

// sampleContact is contact data of every field for checking templates.
func sampleContact() contactData {
	return contactData{SenderName: "Alice Example", SenderEmail: "alice@example.org", Recipient: "Collection manager",
		GBIFID: 1234, DatasetKey: "79829665-82c9-414b-b3c1-c1920c4c6c78", DatasetTitle: "Sample dataset",
		RecordURL: "https://example.org/occurrence/1234", Subject: "The locality of this record",
		Body: "Hello,\nthe locality looks wrong to me.\nBest, Alice"}
}

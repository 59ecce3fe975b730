package resource

import (
	"slices"

	"github.com/proctorhq/proctor/storage"
)

// SubscriptionGrid is a member's notification choices as the Member API and /mcp answer them:
// the whole grid a settings page shows. Every known topic on every channel comes first
// (storage.NotificationTopics by storage.NotificationChannels, in their order), off unless
// stored turns it on; then every stored choice of another topic or channel (imported data may
// hold them), as stored.
func SubscriptionGrid(stored []storage.NotificationSubscription) []storage.NotificationSubscription {
	out := make([]storage.NotificationSubscription, 0, len(storage.NotificationTopics)*len(storage.NotificationChannels))
	for _, topic := range storage.NotificationTopics {
		for _, channel := range storage.NotificationChannels {
			s := storage.NotificationSubscription{Topic: topic, Channel: channel}
			if i := slices.IndexFunc(stored, func(x storage.NotificationSubscription) bool { return x.Topic == topic && x.Channel == channel }); i >= 0 {
				s.Enabled = stored[i].Enabled
			}
			out = append(out, s)
		}
	}
	for _, s := range stored {
		if !slices.Contains(storage.NotificationTopics, s.Topic) || !slices.Contains(storage.NotificationChannels, s.Channel) {
			out = append(out, s)
		}
	}
	return out
}

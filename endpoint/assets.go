package endpoint

import (
	"crypto/sha256"
	"encoding/hex"
)

// Assets is the path under which content-named static files are served at every school's
// origin: the pages' stylesheet and script, and a school's look (its stylesheet and logo).
const Assets = "/assets/"

// AssetHashLen is how many lower-case hex digits of SHA-256 name an asset: 64 bits, so that
// two different contents of one process never share a name by accident.
const AssetHashLen = 16

// AssetName is the name of an asset by its content: prefix, the hash, suffix. A changed file
// is a new name, which every replica derives alike, so an asset may be cached for good.
func AssetName(prefix string, body []byte, suffix string) string {
	sum := sha256.Sum256(body)
	return prefix + hex.EncodeToString(sum[:])[:AssetHashLen] + suffix
}

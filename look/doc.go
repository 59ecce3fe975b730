// Package look is a school's look on its pages: its primary colour, its logo and its theme
// (storage.Appearance, which the school's operators edit through the operator API).
//
// The colour is text, link and focus-ring colour on the base stylesheet's surfaces (page and
// card, light and dark) and the background of buttons, so it is held to WCAG 2.x contrast:
//
//   - Check is the rule when an operator sets an appearance (operator API, seed files): the
//     colour must reach 4.5:1 (AA, normal text) against both surfaces of its theme, the light
//     ones for light and auto, the dark ones for dark, and the refusal says by how much it
//     misses and which way to move.
//   - PaletteOf is what pages use: the colour for the light surfaces and for the dark ones, each
//     with the text colour of a button of it (white or near-black). A colour that reads on one
//     side is moved step by step towards white (dark side) or black (light side) for the other,
//     which is how theme auto gets its dark side; so is a stored colour that predates Check.
//
// A page links the school's stylesheet (CSS: the palette as custom properties) after the base
// one. Its path is the hash of its bytes (StylesheetPath), so an edited appearance is a new URL
// on the next page load of every replica, and the old one may be cached for good.
//
// The logo is an https URL on another host, but pages allow images from their own origin only
// (img-src 'self'): the Service fetches the image and serves it from the school's origin, at a
// path named by the hash of its bytes. The fetch goes through netguard (no special-use
// addresses, checked on the address dialled; Options.AllowPrivateNetworks lets tests and a local
// deployment reach loopback and private addresses), over https only (there is no http
// allowance, even on loopback: tests serve TLS with their own CA through Options.RootCAs), with
// a timeout, at most 512 KiB, redirects only to https and re-checked by the guard at each dial,
// and only raster images as the bytes show them (PNG, JPEG, GIF, WebP; never SVG, which can
// carry scripts). A logo that cannot be had is no logo: the page shows the school's name.
//
// The logo may instead be an image the school uploaded (Appearance.LogoFileID, a file of the
// operator API's storage), read through Options.LogoFile for the school in the request's
// context and held to the same rules (size, raster type by the bytes); it is served the same
// way, under the hash of its bytes. An appearance naming both kinds uses the file. Being the
// deployment's own storage, it is waited for up to the fetch timeout rather than Options.Wait,
// so the first page shows it. Its cache entry is keyed by school and file id, so that one
// school's answer is never another's.
//
// Logos are cached per process, bounded: a fetched one for Options.KeepFor (then refreshed
// while still shown), a failure for the shorter Options.RetryAfter, so that a broken URL costs
// one fetch per while and not one per page. Concurrent pages share one fetch. A page waits for
// a fetch it started at most Options.Wait (300 ms), because a page must not hang on another
// host: a slow logo shows from the next page on. A request for an asset this process does not
// hold (another replica drew the page) rebuilds the school's look from its current appearance
// before answering 404.
//
// The package does not import the authorization server (authz) or fosite.
package look

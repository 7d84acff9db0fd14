// Resolves: (guide.md, "A bold lead that wraps
// over the line"), (guide.md, "The algorithms beyond the ring"), (guide.md, "Kept …").
// Dangling: (guide.md, "Renamed section") and (missing.md, "Anything").
// Links, as README.md writes them: [resolves](guide.md#kept-sections), [dangles](guide.md#renamed-section).

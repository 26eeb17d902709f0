%% Option flags shared with native/b64simd_core/src/options.rs.
-define(MODE_STANDARD, 0).
-define(MODE_URLSAFE, 1).
-define(MODE_ANY, 2).
-define(PADDING, 4).
-define(REJECT_WHITESPACE, 8).
-define(CANONICAL, 16).
-define(DEFAULT_FLAGS, ?PADDING).
%% Longer than any output can be, so the same as no limit, and small enough
%% for the NIF's usize.
-define(MAX_LINE_LENGTH, (1 bsl 48)).

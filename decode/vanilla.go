package decode

import "fmt"

// Rejection is ESteamRejection, the reason in a Rejected message (wire.md 3:
// 6 bits). The names and their order are those of the game's enum
// SDG.Unturned.ESteamRejection as found in decompiled game sources of
// 3.2x builds; values after CONNECT_RATE_LIMITING (51) are not known and print
// as Unknown(n).
type Rejection uint8

// RejectionBits is the width of ESteamRejection on the wire (wire.md 3).
const RejectionBits = 6

const (
	RejectServerFull    Rejection = 0
	RejectWrongVersion  Rejection = 3
	RejectWrongPassword Rejection = 4
	RejectWhitelisted   Rejection = 21
)

var rejectionNames = [...]string{
	"SERVER_FULL", "WRONG_HASH_LEVEL", "WRONG_HASH_ASSEMBLY", "WRONG_VERSION", "WRONG_PASSWORD",
	"NAME_PLAYER_SHORT", "NAME_PLAYER_LONG", "NAME_PLAYER_INVALID", "NAME_PLAYER_NUMBER",
	"NAME_CHARACTER_SHORT", "NAME_CHARACTER_LONG", "NAME_CHARACTER_INVALID", "NAME_CHARACTER_NUMBER",
	"PRO_SERVER", "PRO_CHARACTER", "PRO_DESYNC", "PRO_APPEARANCE",
	"ALREADY_PENDING", "ALREADY_CONNECTED", "NOT_PENDING", "LATE_PENDING", "WHITELISTED",
	"AUTH_VERIFICATION", "AUTH_NO_STEAM", "AUTH_LICENSE_EXPIRED", "AUTH_VAC_BAN", "AUTH_ELSEWHERE",
	"AUTH_TIMED_OUT", "AUTH_USED", "AUTH_NO_USER", "AUTH_PUB_BAN", "AUTH_ECON_DESERIALIZE",
	"AUTH_ECON_VERIFY", "PING", "PLUGIN", "CLIENT_MODULE_DESYNC", "SERVER_MODULE_DESYNC",
	"WRONG_LEVEL_VERSION", "WRONG_HASH_ECON", "WRONG_HASH_MASTER_BUNDLE",
	"LATE_PENDING_STEAM_AUTH", "LATE_PENDING_STEAM_ECON", "LATE_PENDING_STEAM_GROUPS",
	"NAME_PRIVATE_LONG", "NAME_PRIVATE_INVALID", "NAME_PRIVATE_NUMBER", "WRONG_HASH_RESOURCES",
	"AUTH_NETWORK_IDENTITY_FAILURE", "SKIN_COLOR_WITHIN_THRESHOLD_OF_TERRAIN_COLOR",
	"STEAM_ID_MISMATCH", "CONNECT_RATE_LIMITING",
}

func (r Rejection) String() string {
	if int(r) < len(rejectionNames) {
		return rejectionNames[r]
	}
	return fmt.Sprintf("Unknown(%d)", uint8(r))
}

// WorkshopFile is one entry of DownloadWorkshopFiles' file list.
type WorkshopFile struct {
	ID      uint64 // workshop file id
	Updated int64  // .NET DateTime.ToBinary() of its last update (wire.md 1.3)
}

// WorkshopInfo is the body of DownloadWorkshopFiles (wire.md 3), for the
// Encoder.
type WorkshopInfo struct {
	Holiday      uint8 // ENPCHoliday: 4 bits in 3.26, 3 bits in 3.24
	Files        []WorkshopFile
	ServerName   string
	Map          string
	PvP          bool
	Cheats       bool
	VAC          bool
	AntiCheat    bool // isAntiCheatActive (BattlEye)
	Gold         bool
	GameMode     uint8 // EGameMode, 3 bits
	CameraMode   uint8 // ECameraMode, 3 bits
	MaxPlayers   uint8
	BookmarkHost string
	Thumbnail    string
	Description  string
}

// Vanilla holds the few values of a vanilla message that Summary shows, so
// that a summary needs no field spans. Byte slices alias the message.
type Vanilla struct {
	// Text is Kicked's, Banned's or Shutdown's reason, Rejected's
	// explanation, DownloadWorkshopFiles' server name or GetWorkshopFiles'
	// greeting.
	Text      []byte
	Rejection Rejection
	// Value is Accepted's IPv4 address, Banned's seconds, the UInt8 of
	// Admined, Unadmined and QueuePositionChanged, PlayerDisconnected's NetId,
	// an InvokeMethod index or an UPDATE_*_BUFFER call index.
	Value uint32
	Port  uint16 // Accepted's query port; an UPDATE_*_BUFFER channel
	Files int    // DownloadWorkshopFiles' file count
}

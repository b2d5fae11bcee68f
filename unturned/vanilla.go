package unturned

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/netpak"
)

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

func (r Rejection) String() string { return enum.Name(rejectionNames[:], r) }

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
	// Admined, Unadmined and QueuePositionChanged, PlayerDisconnected's NetID,
	// an InvokeMethod index or an UPDATE_*_BUFFER call index.
	Value uint32
	Port  uint16 // Accepted's query port; an UPDATE_*_BUFFER channel
	Files int    // DownloadWorkshopFiles' file count
}

// gwfZeros is the number of zero bytes in GetWorkshopFiles (wire.md 3).
const gwfZeros = 960

// gwfGreeting is the string the vanilla client writes after them.
const gwfGreeting = "Hello!"

// getWorkshopFiles: align; 960 zero bytes; String("Hello!"); then the
// marker or another trailer (wire.md 3, 4.1). The zeros are one field, not
// 960, and a non-zero byte among them is a warning.
func getWorkshopFiles(m *decoder) {
	from := m.r.Pos()
	z := m.r.Bytes(gwfZeros)
	if !m.check("zeros", from) {
		return
	}
	if m.spans != nil {
		m.spans.AddUint("zeros", from, &m.r, gwfZeros)
	}
	for i, c := range z {
		if c != 0 {
			m.finding(dissect.Warn, dissect.Protocol, 8*(1+i), fmt.Sprintf("%s: zeros: byte %d is %#02x; the vanilla client writes 960 zero bytes", m.partName(), 1+i, c))
			break
		}
	}
	g := m.str("greeting", netpak.DefaultStringBits)
	if m.failed {
		return
	}
	m.d.Vanilla.Text = g
	if string(g) != gwfGreeting {
		m.finding(dissect.Warn, dissect.Protocol, from+8*gwfZeros, m.partName()+": greeting: the vanilla client writes \"Hello!\"")
	}
	m.trailer()
}

// downloadWorkshopFiles: the server's answer in the profile's game layout
// (wire.md 3), then the marker or another trailer (wire.md 4.1).
func downloadWorkshopFiles(m *decoder) {
	p, v := m.p, &m.d.Vanilla
	m.bits("holiday", p.HolidayBits())
	n := int(m.bits("files.count", 8))
	v.Files = n
	for i := 0; i < n && !m.failed; i++ {
		m.fileField(i, "id")
		m.fileField(i, "updated")
	}
	v.Text = m.str("server_name", netpak.DefaultStringBits)
	m.str("map", netpak.DefaultStringBits)
	m.flag("is_pvp")
	m.flag("has_cheats")
	m.flag("is_vac_active")
	m.flag("is_anti_cheat_active")
	m.flag("is_gold")
	m.bits("game_mode", 3)
	m.bits("camera_mode", 3)
	m.bits("max_players", 8)
	m.str("bookmark_host", netpak.DefaultStringBits)
	m.str("thumbnail", netpak.DefaultStringBits)
	m.str("description", netpak.DefaultStringBits)
	if m.failed {
		return
	}
	m.trailer()
}

// fileField reads files[i].id (UInt64) or files[i].updated (DateTime, an
// Int64). The name is built only when it is shown, so that the hot path
// does not format it.
func (m *decoder) fileField(i int, part string) {
	from := m.r.Pos()
	v := m.r.UInt64()
	if m.r.Err() == nil && m.spans == nil {
		return
	}
	name := "files[" + itoa(i) + "]." + part
	if !m.check(name, from) {
		return
	}
	if part == "updated" {
		m.spans.AddInt(name, from, &m.r, int64(v))
		return
	}
	m.spans.AddUint(name, from, &m.r, v)
}

// textBody: Kicked (String reason) and Shutdown (String) (wire.md 3).
func textBody(m *decoder) {
	m.d.Vanilla.Text = m.str("reason", netpak.DefaultStringBits)
	m.end()
}

// rejected: ESteamRejection (6 bits), String explanation (wire.md 3).
func rejected(m *decoder) {
	m.d.Vanilla.Rejection = Rejection(m.bits("rejection", RejectionBits))
	m.d.Vanilla.Text = m.str("explanation", netpak.DefaultStringBits)
	m.end()
}

// banned: String reason, UInt32 seconds (wire.md 3).
func banned(m *decoder) {
	m.d.Vanilla.Text = m.str("reason", netpak.DefaultStringBits)
	m.d.Vanilla.Value = m.bits("seconds", 32)
	m.end()
}

// byteBody: Admined, Unadmined (the player's UInt8) and QueuePositionChanged
// (UInt8) (wire.md 3).
func byteBody(m *decoder) {
	name := "player"
	if m.d.Kind == KindQueuePositionChanged {
		name = "position"
	}
	m.d.Vanilla.Value = m.bits(name, 8)
	m.end()
}

// playerDisconnected: NetID (wire.md 3, 3.24.7+).
func playerDisconnected(m *decoder) {
	m.d.Vanilla.Value = m.bits("net_id", 32)
	m.end()
}

// accepted: UInt32 IPv4, UInt16 query port; 3.24 sends server config after
// them, shown as undecoded bits (wire.md 3).
func accepted(m *decoder) {
	m.d.Vanilla.Value = m.bits("ip", 32)
	m.d.Vanilla.Port = uint16(m.bits("query_port", 16))
	if m.p.Game == "3.24" && !m.failed && m.r.Remaining() >= 8 {
		from, n := m.rest("config")
		m.finding(dissect.Note, dissect.Undecoded, from, m.partName()+": config: "+itoa(n)+" bits of 3.24 server config are not decoded")
		return
	}
	m.end()
}

// invokeMethod: the method index in CountBits(method count) bits; what
// follows (a NetID for instance methods, then the method's parameters)
// depends on the method, which a build-independent decoder cannot know
// (wire.md 3), so it is one undecoded `parameters` field.
func invokeMethod(m *decoder) {
	from := m.r.Pos()
	i := m.bits("method", m.p.MethodBits(m.dir))
	if m.failed {
		return
	}
	m.d.Vanilla.Value = i
	if count := m.p.methodCount(m.dir); i >= count {
		m.finding(dissect.Warn, dissect.Protocol, from, m.partName()+": method: index "+itoa(int(i))+" is out of range (the profile has "+itoa(int(count))+" methods)")
	}
	if m.r.Remaining() > 0 {
		m.rest("parameters")
	}
}

// legacyBuffer: UPDATE_RELIABLE_BUFFER / UPDATE_UNRELIABLE_BUFFER: the enum
// and pad bits fill byte 0, then the call index and channel bytes, then
// byte-oriented legacy data (wire.md 3). The pad bits are read as a field,
// not as a NetPak align, because this is the older byte-oriented format.
func legacyBuffer(m *decoder) {
	if pad := (8 - m.r.Pos()&7) & 7; pad > 0 {
		from := m.r.Pos()
		if v := m.bits("padding", pad); v != 0 && !m.failed {
			m.finding(dissect.Warn, dissect.Malformed, from, m.partName()+": padding: "+itoa(pad)+" bits after the enum are not zero")
		}
	}
	m.d.Vanilla.Value = m.bits("call_index", 8)
	m.d.Vanilla.Port = uint16(m.bits("channel", 8))
	if !m.failed && m.r.Remaining() > 0 {
		m.rest("legacy_data")
	}
}

package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// Checks before a run use SHOW where they can, so that the server's Com_*
// counters keep counting the benchmark's statements only.
func isMariaDB(ctx context.Context, c engine.Conn) (bool, error) {
	rows, err := c.Query(ctx, "SHOW VARIABLES LIKE 'version'")
	if err != nil || len(rows) != 1 {
		return false, fmt.Errorf("reading server version: %w", err)
	}
	return strings.Contains(strings.ToLower(rows[0][1]), "mariadb"), nil
}

// TDETableOption: MariaDB needs an active encryption (key management)
// plugin; MySQL 8 a keyring.
func (Engine) TDETableOption(ctx context.Context, c engine.Conn) (string, error) {
	maria, err := isMariaDB(ctx, c)
	if err != nil {
		return "", err
	}
	if maria {
		rows, err := c.Query(ctx, "SELECT plugin_name FROM information_schema.plugins WHERE plugin_type = 'ENCRYPTION' AND plugin_status = 'ACTIVE'")
		if err != nil {
			return "", fmt.Errorf("looking for a key management plugin: %w", err)
		}
		if len(rows) == 0 {
			return "", errs.Usage("this MariaDB server cannot encrypt tables: no key management plugin is active (load file_key_management, or use `encbench sandbox up --variant tde`)")
		}
		return "ENCRYPTED=YES", nil
	}
	rows, err := c.Query(ctx, "SELECT COUNT(*) FROM information_schema.plugins WHERE plugin_name LIKE 'keyring%' AND plugin_status = 'ACTIVE'")
	if err == nil && len(rows) == 1 && rows[0][0] != "0" {
		return "ENCRYPTION='Y'", nil
	}
	comp, cerr := c.Query(ctx, "SELECT STATUS_VALUE FROM performance_schema.keyring_component_status WHERE STATUS_KEY = 'Component_status'")
	if cerr == nil && len(comp) == 1 && strings.EqualFold(comp[0][0], "active") {
		return "ENCRYPTION='Y'", nil
	}
	return "", errs.Usage("this MySQL server cannot encrypt tables: no keyring plugin or component is active (see MySQL's keyring documentation)")
}

func (Engine) TDESource() string {
	return "information_schema.INNODB_TABLESPACES_ENCRYPTION (MariaDB) / INNODB_TABLESPACES (MySQL)"
}

// TDEState: MariaDB reports scheme 1 for an encrypted tablespace and a
// rotation page while background encryption is still running.
func (Engine) TDEState(ctx context.Context, c engine.Conn, tables []string) (map[string]engine.TableTDE, error) {
	out := map[string]engine.TableTDE{}
	for _, t := range tables {
		out[t] = engine.TableTDE{Detail: "not in the encryption view"}
	}
	maria, err := isMariaDB(ctx, c)
	if err != nil {
		return nil, err
	}
	where := `SUBSTRING_INDEX(NAME, '/', 1) = DATABASE() AND SUBSTRING_INDEX(NAME, '/', -1) IN (` + engine.QuoteList(tables) + `)`
	sql := `SELECT SUBSTRING_INDEX(NAME, '/', -1), ENCRYPTION_SCHEME, coalesce(KEY_ROTATION_PAGE_NUMBER, -1), ROTATING_OR_FLUSHING, CURRENT_KEY_VERSION
		FROM information_schema.INNODB_TABLESPACES_ENCRYPTION WHERE ` + where
	if !maria {
		sql = `SELECT SUBSTRING_INDEX(NAME, '/', -1), IF(ENCRYPTION = 'Y', 1, 0), -1, 0, 0
			FROM information_schema.INNODB_TABLESPACES WHERE ` + where
	}
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, fmt.Errorf("reading tablespace encryption: %w", err)
	}
	for _, r := range rows {
		scheme, _ := strconv.Atoi(r[1])
		page, _ := strconv.ParseInt(r[2], 10, 64)
		st := engine.TableTDE{Encrypted: scheme == 1, Settling: page >= 0 || r[3] == "1"}
		st.Detail = fmt.Sprintf("ENCRYPTION_SCHEME=%s KEY_VERSION=%s", r[1], r[4])
		if st.Settling {
			st.Detail += " (key rotation running)"
		}
		out[strings.ToLower(r[0])] = st
	}
	return out, nil
}

// DataBytes sums data and index lengths from SHOW TABLE STATUS.
func (Engine) DataBytes(ctx context.Context, c engine.Conn, tables []string) (int64, error) {
	rows, err := c.Query(ctx, "SHOW TABLE STATUS WHERE Name IN ("+engine.QuoteList(tables)+")")
	if err != nil {
		return 0, fmt.Errorf("reading table sizes: %w", err)
	}
	var total int64
	for _, r := range rows {
		if len(r) < 9 {
			continue
		}
		data, _ := strconv.ParseInt(r[6], 10, 64)
		index, _ := strconv.ParseInt(r[8], 10, 64)
		total += data + index
	}
	return total, nil
}

func (Engine) BufferPoolBytes(ctx context.Context, c engine.Conn) (int64, error) {
	rows, err := c.Query(ctx, "SHOW GLOBAL VARIABLES LIKE 'innodb_buffer_pool_size'")
	if err != nil || len(rows) != 1 {
		return 0, fmt.Errorf("reading innodb_buffer_pool_size: %w", err)
	}
	return strconv.ParseInt(rows[0][1], 10, 64)
}

// GlobalAtRest reads what a table's ENCRYPTED option does not cover: redo
// and undo logs, temporary files and tables, the binary log (MariaDB's
// and MySQL 8's names; a server shows the ones it has).
func (Engine) GlobalAtRest(ctx context.Context, c engine.Conn) (map[string]string, error) {
	rows, err := c.Query(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+engine.QuoteList([]string{
		"innodb_encrypt_log", "innodb_encrypt_temporary_tables", "encrypt_tmp_files", "encrypt_tmp_disk_tables", "encrypt_binlog",
		"innodb_redo_log_encrypt", "innodb_undo_log_encrypt", "binlog_encryption", "innodb_encrypt_tables"})+")")
	if err != nil {
		return nil, fmt.Errorf("reading the server's at-rest settings: %w", err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r[0]] = r[1]
	}
	return out, nil
}

/* MySQL's handshake and mariadb-slap's statements as a MariaDB 10.11.19
 * server and its clients (mariadb, mariadb-slap --auto-generate-sql, libmariadb
 * 3.3.20) exchanged them on 127.0.0.1, each payload copied from strace -x of
 * the client (the server's greeting as the client read it): logins naming a
 * database or none, refused ones (a wrong password, an unknown user: ERR 1045,
 * SQL state 28000), an account of ed25519, to whose plugin the server switches
 * the client, and the SSL request of mariadb --ssl to a server with a
 * certificate, then its TLS. Shared by the parser's and the pairing's tests. */
#ifndef UNIT_MYSQL_WIRE_H
#define UNIT_MYSQL_WIRE_H

#include <stdint.h>

#define MY_WIRE static const uint8_t __attribute__((unused))

/* mariadb-slap: its client connection logs into the schema it made
 * (greeting, login, OK) and reads the table (select); its setup connection
 * made the table (create) and filled it (insert). The generated statements
 * end with the C string's NUL. */
MY_WIRE slap_greeting[] =
	"h\x00\x00\x00\x0a" "5.5.5-10.11.19-MariaDB-0+deb12u1-log\x00\x05\x00\x00\x00" "9"
	"0$bEn{C\x00\xfe\xf7\x08\x02\x00\xff\x81\x15\x00\x00\x00\x00\x00\x00\x1d\x00\x00"
	"\x00wOd-M|KBFzUx\x00mysql_native_password\x00";  /* 108 bytes */
MY_WIRE slap_login[] =
	"\xb3\x00\x00\x01\x8c\xa2\xbf\x80\x00\x00\x10\x00\x08\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00root\x00\x00mysq"
	"lslap\x00mysql_native_password\x00l\x03_os\x05Linux\x0c_client_name\x0alibmariad"
	"b\x04_pid\x05" "17502\x0f_client_version\x06" "3.3.20\x09_platform\x06x86_64\x0c"
	"_server_host\x09" "127.0.0.1";  /* 183 bytes, root@mysqlslap */
MY_WIRE slap_login_ok[] =
	"\x15\x00\x00\x02\x00\x00\x00\x02@\x00\x00\x00\x0c\x01\x0a\x09mysqlslap";  /* 25 bytes */
MY_WIRE slap_create[] =
	"<\x00\x00\x00\x03" "CREATE TABLE `t1` (intcol1 INT(32) ,charcol1 VARCHAR(128))"
	"\x00";  /* 64 bytes */
MY_WIRE slap_insert[] =
	"\xa5\x00\x00\x00\x03INSERT INTO t1 VALUES (1804289383,'mxvtvmC9127qJNm06sGB8R92q"
	"2j7vTiiITRDGXM9ZLzkdekbWtmXKwZ2qG1llkRw5m9DHOFilEREk3q7oce8O3BEJC0woJsm6uzFAEynL"
	"H2xCsw1KQ1lT4zg9rdxBL')\x00";  /* 169 bytes */
MY_WIRE slap_insert_ok[] =
	"\x07\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00";  /* 11 bytes */
MY_WIRE slap_select[] =
	"!\x00\x00\x00\x03SELECT intcol1,charcol1 FROM t1\x00";  /* 37 bytes */
/* mariadb -D shop, -pwrong, -u nosuch */
MY_WIRE login_db[] =
	"\xc1\x00\x00\x01\x8c\xa2\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00root\x00\x00shop"
	"\x00mysql_native_password\x00\x7f\x03_os\x05Linux\x0c_client_name\x0alibmariadb"
	"\x04_pid\x05" "23558\x0f_client_version\x06" "3.3.20\x09_platform\x06x86_64\x0cp"
	"rogram_name\x05mysql\x0c_server_host\x09" "127.0.0.1";  /* 197 bytes, root@shop */
MY_WIRE login_db_ok[] =
	"\x10\x00\x00\x02\x00\x00\x00\x02@\x00\x00\x00\x07\x01\x05\x04shop";  /* 20 bytes */
MY_WIRE login_badpw[] =
	"\xd0\x00\x00\x01\x84\xa2\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00root\x00\x14i"
	"\xfcO\x89\xde" "cs{.x7\x98s\xba\x07\x0e" "2\x8e)Smysql_native_password\x00\x7f"
	"\x03_os\x05Linux\x0c_client_name\x0alibmariadb\x04_pid\x05" "23563\x0f_client_ve"
	"rsion\x06" "3.3.20\x09_platform\x06x86_64\x0cprogram_name\x05mysql\x0c_server_ho"
	"st\x09" "127.0.0.1";  /* 212 bytes, root, a wrong password */
MY_WIRE denied_root[] =
	"H\x00\x00\x02\xff\x15\x04#28000Access denied for user 'root'@'localhost' (using "
	"password: YES)";  /* 76 bytes */
MY_WIRE login_nouser[] =
	"\xbe\x00\x00\x01\x84\xa2\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00nosuch\x00\x00my"
	"sql_native_password\x00\x7f\x03_os\x05Linux\x0c_client_name\x0alibmariadb\x04_pi"
	"d\x05" "23568\x0f_client_version\x06" "3.3.20\x09_platform\x06x86_64\x0cprogram_"
	"name\x05mysql\x0c_server_host\x09" "127.0.0.1";  /* 194 bytes, nosuch */
MY_WIRE denied_nouser[] =
	"I\x00\x00\x02\xff\x15\x04#28000Access denied for user 'nosuch'@'localhost' (usin"
	"g password: NO)";  /* 77 bytes */
/* mariadb -u ed -psecret -D shop, then -pbad: an ed25519 account */
MY_WIRE ed_login[] =
	"\xd3\x00\x00\x01\x8c\xa2\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00" "ed\x00\x14"
	"\x81\x0c\xbe" "e\xb2\x12" "69\x97\x1a\xbe\xc8\x09\x15\x9f" "3\xea\x03\x0d\x82sho"
	"p\x00mysql_native_password\x00\x7f\x03_os\x05Linux\x0c_client_name\x0alibmariadb"
	"\x04_pid\x05" "23573\x0f_client_version\x06" "3.3.20\x09_platform\x06x86_64\x0cp"
	"rogram_name\x05mysql\x0c_server_host\x09" "127.0.0.1";  /* 215 bytes, ed@shop */
/* the server's auth switch request: to client_ed25519 */
MY_WIRE ed_switch[] =
	"0\x00\x00\x02\xfe" "client_ed25519\x00\xcf\x93q\xc5\xd4\x8f\xa8\x0d\xd7\x97p\x88"
	"\x97\x19\xd2\xd0\xdc\xc0.\xcf" "5\xb0\xd4\x1c\x12" "d\xc8J\xae\xc7\xb4\xb2";  /* 52 bytes */
MY_WIRE ed_auth[] =
	"@\x00\x00\x03\xeb&\xae\xc7" "9\x01;\xa9n;\xae\xb4Ju\xcdy\xd5\x99\xdc\xc5\xa3\xe8"
	"\xe6Q\x0e" "E\xa0z\x9a\xae\xe9V\x90\xffjc_i'S\xe1v\xc2\xbfo\x05\xb0&m\xf7\x93"
	"\x01\xe8\xba$\xfb\x87\xbb\x1e\xd3\xea\x86\xf6\x0f";  /* 68 bytes */
MY_WIRE ed_ok[] =
	"\x10\x00\x00\x04\x00\x00\x00\x02@\x00\x00\x00\x07\x01\x05\x04shop";  /* 20 bytes */
MY_WIRE edbad_login[] =
	"\xd3\x00\x00\x01\x8c\xa2\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00" "ed\x00\x14"
	"\x1c\x08\xa2\xfd" "9-GN\xe0\xa7u\x08yP\xc6\xe4\x8a" "a\xe3vshop\x00mysql_native_"
	"password\x00\x7f\x03_os\x05Linux\x0c_client_name\x0alibmariadb\x04_pid\x05" "235"
	"78\x0f_client_version\x06" "3.3.20\x09_platform\x06x86_64\x0cprogram_name\x05mys"
	"ql\x0c_server_host\x09" "127.0.0.1";  /* 215 bytes, ed@shop */
MY_WIRE edbad_switch[] =
	"0\x00\x00\x02\xfe" "client_ed25519\x00\x0bV\xc0\xee\x08\xe1\x99\xb7\xf8\xc2S\x8f"
	"\xcdz\xd0_)\x8at\x1b\xf3\xec\xcaJ\xc7\xd7" "2\x96\x12" "48\xda";  /* 52 bytes */
MY_WIRE edbad_auth[] =
	"@\x00\x00\x03\x05\xb0\xbb" "d\xeb:\x8a\xa4\x1c\xa9%\xd8% \xb3=\xd2\xfaqg\x0e" "8"
	"0\xa5\xa4\x19'\x1e\xd9(\xa0\x9d!\xfd\xd2\x85K7/vlJ\xf3\x03\x0cr[Z0\xb1\x1f\x91I"
	"\xaf\xa9=2\x97IE\xe7\xe2&\x05";  /* 68 bytes */
MY_WIRE denied_ed[] =
	"F\x00\x00\x04\xff\x15\x04#28000Access denied for user 'ed'@'localhost' (using pa"
	"ssword: YES)";  /* 74 bytes */
/* mariadb --ssl: the SSL request, then TLS (the first bytes of each flight) */
MY_WIRE ssl_greeting[] =
	"h\x00\x00\x00\x0a" "5.5.5-10.11.19-MariaDB-0+deb12u1-log\x00\x04\x00\x00\x00" "c"
	"hc7(b5!\x00\xfe\xff\x08\x02\x00\xff\x81\x15\x00\x00\x00\x00\x00\x00\x1d\x00\x00"
	"\x00" "Cn\x22\x5c)WX7JL|P\x00mysql_native_password\x00";  /* 108 bytes */
MY_WIRE ssl_request[] =
	" \x00\x00\x01\x8c\xaa\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00";  /* 36 bytes */
MY_WIRE ssl_client_hello[] =
	"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03VZ\x80z\x22";  /* 16 bytes, the first of its 517 */
MY_WIRE ssl_server_hello[] =
	"\x16\x03\x03\x00z\x02\x00\x00v\x03\x03\xd7<\xda\xd9\x9d";  /* 16 bytes, the first of 127 */

#endif

// Prepared statements as Go's database/sql with go-sql-driver/mysql (Debian's
// golang-github-go-sql-driver-mysql-dev) sends them (e2e_req_sql): a query
// with arguments is a COM_STMT_PREPARE, a COM_STMT_EXECUTE and a
// COM_STMT_CLOSE, which the server does not answer, so the next query's
// prepare follows the close unanswered; a statement prepared once and run
// many times; an Exec with arguments. Usage: stmts DSN. Prints "ran N".
package main

import (
	"database/sql"
	"fmt"
	"os"

	_ "github.com/go-sql-driver/mysql"
)

func main() {
	db, err := sql.Open("mysql", os.Args[1])
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	n := 0
	for i := 0; i < 20; i++ {
		var v int
		if err := db.QueryRow("SELECT ? + 1", i).Scan(&v); err != nil || v != i+1 {
			panic(fmt.Sprint("query ", i, err))
		}
		n++
	}
	st, err := db.Prepare("SELECT ? * 2, ? AS name")
	if err != nil {
		panic(err)
	}
	for i := 0; i < 10; i++ {
		var v int
		var s string
		if err := st.QueryRow(i, fmt.Sprint("n", i)).Scan(&v, &s); err != nil || v != 2*i {
			panic(fmt.Sprint("prepared ", i, err))
		}
		n++
	}
	st.Close()
	for i := 0; i < 5; i++ {
		if _, err := db.Exec("DO ? + ?", i, 1); err != nil {
			panic(err)
		}
		n++
	}
	db.Close()
	fmt.Println("ran", n)
}

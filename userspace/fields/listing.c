/* The -l (fields) and -L (events) listings, laid out like sysdig's. */
#include "fields_int.h"

#define NAME_COL 30
#define LINE_WIDTH 120

/* Writes TEXT wrapped to LINE_WIDTH, continuation lines indented to NAME_COL. */
static void wrapped__print(FILE *f, const char *text)
{
	size_t avail = LINE_WIDTH - NAME_COL;

	while (*text) {
		size_t len = strlen(text), cut = len;

		if (len > avail) {
			cut = avail;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = avail;
		}
		fprintf(f, "%.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(f, "%*s", NAME_COL, "");
	}
}

static void column__print(FILE *f, const char *label, const char *text)
{
	if (strlen(label) >= NAME_COL)
		fprintf(f, "%s\n%*s", label, NAME_COL, "");
	else
		fprintf(f, "%-*s", NAME_COL, label);
	wrapped__print(f, text);
}

void fields__list(FILE *f)
{
	for (unsigned c = 0; c < field_classes_len; c++) {
		fprintf(f, "-------------------------------\n");
		column__print(f, "Field Class:", field_classes[c].name);
		column__print(f, "Description:", field_classes[c].desc);
		fprintf(f, "\n");
		for (unsigned i = 0; i < field_table_len; i++)
			if (field_table[i].cls == c)
				column__print(f, field_table[i].name, field_table[i].desc);
		fprintf(f, "\n");
	}
}

static const char *type__name(uint8_t type)
{
	static const char *const names[] = {
		[PT_NONE] = "NONE", [PT_INT8] = "INT8", [PT_INT16] = "INT16",
		[PT_INT32] = "INT32", [PT_INT64] = "INT64", [PT_UINT8] = "UINT8",
		[PT_UINT16] = "UINT16", [PT_UINT32] = "UINT32", [PT_UINT64] = "UINT64",
		[PT_CHARBUF] = "CHARBUF", [PT_BYTEBUF] = "BYTEBUF", [PT_ERRNO] = "ERRNO",
		[PT_SOCKADDR] = "SOCKADDR", [PT_SOCKTUPLE] = "SOCKTUPLE", [PT_FD] = "FD",
		[PT_PID] = "PID", [PT_FDLIST] = "FDLIST", [PT_FSPATH] = "FSPATH",
		[PT_SYSCALLID] = "SYSCALLID", [PT_SIGTYPE] = "SIGTYPE",
		[PT_RELTIME] = "RELTIME", [PT_ABSTIME] = "ABSTIME", [PT_PORT] = "PORT",
		[PT_L4PROTO] = "L4PROTO", [PT_SOCKFAMILY] = "SOCKFAMILY", [PT_BOOL] = "BOOL",
		[PT_IPV4ADDR] = "IPV4ADDR", [PT_DYN] = "DYNAMIC", [PT_FLAGS8] = "FLAGS8",
		[PT_FLAGS16] = "FLAGS16", [PT_FLAGS32] = "FLAGS32", [PT_UID] = "UID",
		[PT_GID] = "GID", [PT_DOUBLE] = "DOUBLE", [PT_SIGSET] = "SIGSET",
		[PT_CHARBUFARRAY] = "CHARBUFARRAY",
		[PT_CHARBUF_PAIR_ARRAY] = "CHARBUF_PAIR_ARRAY", [PT_IPV4NET] = "IPV4NET",
		[PT_IPV6ADDR] = "IPV6ADDR", [PT_IPV6NET] = "IPV6NET", [PT_IPADDR] = "IPADDR",
		[PT_IPNET] = "IPNET", [PT_MODE] = "MODE", [PT_FSRELPATH] = "FSRELPATH",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "UNKNOWN";
}

void events__list(FILE *f)
{
	for (unsigned t = 0; t < PPM_EVENT_MAX; t++) {
		const struct ppm_event_info *ei = &schema_events[t];

		/* sysdig lists only the current layout of each event, and no
		 * internal (meta) events */
		if (!ei->name || (ei->flags & (EF_UNUSED | EF_OLD_VERSION)) ||
		    ei->category == EC_INTERNAL)
			continue;
		fprintf(f, "%c %s(", PPME_IS_ENTER(t) ? '>' : '<', ei->name);
		for (uint32_t p = 0; p < ei->nparams && p < PPM_MAX_EVENT_PARAMS; p++)
			fprintf(f, "%s%s %s", p ? ", " : "", type__name(ei->params[p].type),
				ei->params[p].name);
		fprintf(f, ")\n");
	}
}

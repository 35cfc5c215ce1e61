/* Bounded reading of the runtimes' JSON files (json-c) and the helpers the
 * readers share. Every file is untrusted: size, type and shape are checked. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "meta_int.h"

static int meta__path(char *out, size_t n, const char *root, const char *path)
{
	int len = snprintf(out, n, "%s%s", root ? root : "", path);

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

bool meta__exists(const char *root, const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	return meta__path(full, sizeof(full), root, path) == 0 && lstat(full, &st) == 0;
}

/* Reads the whole regular file FD (at most MAX bytes) into a malloc()ed buffer. */
static int read_all(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	size_t cap, off = 0;
	char *buf;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + off, cap - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (r == 0)
			break;
		off += (size_t)r;
		if (off == cap) {
			/* it grew while we read it */
			char *nb;

			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
	}
	*out = buf;
	*len = off;
	return 0;
}

json_object *meta__read_json(const char *root, const char *path, size_t max,
			     json_type want, int *err)
{
	char full[PATH_MAX], *buf = NULL;
	struct json_tokener *tok;
	json_object *obj;
	size_t len = 0;
	int fd, e;

	if ((e = meta__path(full, sizeof(full), root, path))) {
		*err = e;
		return NULL;
	}
	/* O_NONBLOCK: a FIFO planted under the runtime's directory must not hang us */
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		*err = errno == ELOOP ? -EINVAL : -errno;
		return NULL;
	}
	e = read_all(fd, max, &buf, &len);
	close(fd);
	if (e) {
		*err = e;
		return NULL;
	}
	tok = json_tokener_new_ex(META_JSON_DEPTH);
	if (!tok) {
		free(buf);
		*err = -ENOMEM;
		return NULL;
	}
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	/* the whole file must be one WANT (trailing blanks allowed) */
	if (obj && json_tokener_get_error(tok) == json_tokener_success) {
		size_t used = json_tokener_get_parse_end(tok);

		while (used < len && (buf[used] == ' ' || buf[used] == '\n' ||
				      buf[used] == '\r' || buf[used] == '\t'))
			used++;
		if (used != len || !json_object_is_type(obj, want)) {
			json_object_put(obj);
			obj = NULL;
		}
	} else if (obj) {
		json_object_put(obj);
		obj = NULL;
	}
	json_tokener_free(tok);
	free(buf);
	if (!obj)
		*err = -EINVAL;
	return obj;
}

const char *meta__str(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

json_object *meta__obj(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

/* Sets *DST to a copy of the N bytes at S. */
static int set_n(char **dst, const char *s, size_t n)
{
	char *c = malloc(n + 1);

	if (!c)
		return -ENOMEM;
	memcpy(c, s, n);
	c[n] = '\0';
	free(*dst);
	*dst = c;
	return 0;
}

int meta__set(char **dst, const char *s)
{
	return s && *s ? set_n(dst, s, strnlen(s, META_STR_MAX)) : 0;
}

int meta__set_pod_labels(struct container_info *ci, json_object *obj)
{
	int err = 0;

	err |= meta__set(&ci->pod_name, meta__str(obj, "io.kubernetes.pod.name"));
	err |= meta__set(&ci->pod_namespace, meta__str(obj, "io.kubernetes.pod.namespace"));
	err |= meta__set(&ci->pod_uid, meta__str(obj, "io.kubernetes.pod.uid"));
	return err ? -ENOMEM : 0;
}

int meta__set_image_id(struct container_info *ci, const char *s)
{
	const char *colon = s ? strchr(s, ':') : NULL;

	return meta__set(&ci->image_id, colon ? colon + 1 : s);
}


int meta__split_image(struct container_info *ci)
{
	const char *img = ci->image, *at, *slash, *colon, *end;
	int err;

	if (!img || !*img)
		return 0;
	end = img + strlen(img);
	at = strchr(img, '@');
	if (at) {
		if ((err = set_n(&ci->image_digest, at + 1, (size_t)(end - at - 1))))
			return err;
		end = at;
	}
	/* a tag is the ':' after the last '/' ("host:5000/app" has none) */
	slash = memrchr(img, '/', (size_t)(end - img));
	colon = memrchr(slash ? slash : img, ':', (size_t)(end - (slash ? slash : img)));
	if (colon) {
		if ((err = set_n(&ci->image_tag, colon + 1, (size_t)(end - colon - 1))))
			return err;
		end = colon;
	}
	if (!ci->image_tag && (err = set_n(&ci->image_tag, "latest", 6)))
		return err;
	return set_n(&ci->image_repo, img, (size_t)(end - img));
}

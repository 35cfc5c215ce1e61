/* A library the symbolizer's test maps with dlopen, as a program maps a
 * plugin: its function's name must come back from the library's own file.
 * The function is a few bytes long: the test's offsets in it stay below 4. */
__attribute__((noinline)) int profile_victim_fn(int x);

__attribute__((noinline)) int profile_victim_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

/*
 * CGeonames: GeoNames' cities of 15,000 people or more, as Debian's libgeonames (libgeonames-dev)
 * embeds them, read without a GLib type crossing into Swift. libgeonames hands each city as a
 * GVariant (GeonamesCity) that must be freed; this copies one city's fields into a plain struct.
 * Symbols are prefixed `pickerd_`.
 */
#ifndef CGEONAMES_H
#define CGEONAMES_H

#include <stdint.h>

/* One city: its name, state (first-level region), country, ISO country code, IANA time zone,
 * position and population. Strings are NUL-terminated UTF-8, cut at a character boundary when
 * longer than their field (none in libgeonames 0.3.0 is). */
typedef struct {
    double latitude;
    double longitude;
    uint32_t population;
    char name[128];
    char state[128];
    char country[96];
    char country_code[8];
    char time_zone[64];
} pickerd_city;

/* geonames_get_n_cities(): how many cities the library holds. */
int pickerd_city_count(void);

/* geonames_get_city(index) and its accessors, copied into *out. Returns 0, or -1 for an index out
 * of range. */
int pickerd_city_at(int index, pickerd_city *out);

#endif
